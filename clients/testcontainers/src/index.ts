// agui-mock as a Testcontainers module: the image started on a random host port, waited
// for until it serves, with its scenarios, seed and speed set the way e2e suites need, and
// the typed client of its admin API (@agui-mock/client) scoped to a test id.

import path from "node:path";
import { AguiMockClient } from "@agui-mock/client";
import { AbstractStartedContainer, GenericContainer, type StartedTestContainer, Wait } from "testcontainers";

export { AguiMockClient, TEST_ID_HEADER } from "@agui-mock/client";
export type { Fault, FaultKind, JournalEntry, JournalQuery } from "@agui-mock/client";

/** The port the image listens on. */
export const AGUI_MOCK_PORT = 8000;

/** The published image; pin a version tag in your tests. */
export const AGUI_MOCK_IMAGE = "ghcr.io/agui-mock/agui-mock:latest";

/** An agui-mock container to configure and start. */
export class AguiMockContainer extends GenericContainer {
  constructor(image: string = AGUI_MOCK_IMAGE) {
    super(image);
    // ready, not only alive: /_mock/readyz answers once a scenario is loaded
    this.withExposedPorts(AGUI_MOCK_PORT)
      .withWaitStrategy(Wait.forHttp("/_mock/readyz", AGUI_MOCK_PORT).forStatusCode(200))
      .withStartupTimeout(30_000);
  }

  /**
   * Serves the scenario files of a host directory, mounted read-only at /scenarios and
   * watched: a file saved there is played by the next run. Its files must be readable by
   * the container's user (uid 65532).
   */
  withScenarios(hostDir: string): this {
    return this.withBindMounts([{ source: path.resolve(hostDir), target: "/scenarios", mode: "ro" }]);
  }

  /** Fixes the seed of generated ids, fake data and jitter: the same on every run. */
  withSeed(seed: number): this {
    return this.withEnvironment({ AGUI_MOCK_SEED: String(seed) });
  }

  /** Multiplies every delay: 0 plays runs without delays, 1 as the scenarios time them. */
  withSpeed(speed: number): this {
    return this.withEnvironment({ AGUI_MOCK_SPEED: String(speed) });
  }

  override async start(): Promise<StartedAguiMockContainer> {
    return new StartedAguiMockContainer(await super.start());
  }
}

/** A started agui-mock container. */
export class StartedAguiMockContainer extends AbstractStartedContainer {
  constructor(started: StartedTestContainer) {
    super(started);
  }

  /** The base URL from the host, e.g. http://localhost:32768. */
  getBaseUrl(): string {
    return `http://${this.getHost()}:${this.getMappedPort(AGUI_MOCK_PORT)}`;
  }

  /** The AG-UI run endpoint, for HttpAgent's url. */
  getChatUrl(): string {
    return `${this.getBaseUrl()}/agui/chat`;
  }

  /** A client of the admin API (@agui-mock/client), scoped to testId when given (send the same X-Test-Id on runs). */
  admin(testId?: string): AguiMockClient {
    return new AguiMockClient(this.getBaseUrl(), { testId });
  }
}
