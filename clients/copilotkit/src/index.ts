// @agui-mock/copilotkit: agui-mock behind a team's own CopilotKit runtime
// (@copilotkit/runtime 1.75, CopilotRuntime of @copilotkit/runtime/v2). The runtime keeps
// its middleware, hooks, agents and the headers it forwards; AguiMockRunner plays its
// runs, restores and stops on the mock, and aguiMockHooks (or aguiMockMiddleware, which
// withAguiMock sets with the runner) answers its thread routes from the mock.

export { AguiMockRunner } from "./runner.js";
export { aguiMockHooks, aguiMockMiddleware, withAguiMock, type BeforeRequestMiddleware } from "./routes.js";
export { AguiMockError, DEFAULT_PATH, DEFAULT_URL, type AguiMockOptions, type BaseEvent } from "./mock.js";
