// A chat page on the official AG-UI client: each message is a run of the agent at
// AGENT_URL (served by serve.js), on one thread; assistant messages stream in, and a
// failed run shows its error.
import { HttpAgent, type Message } from "@ag-ui/client";

const agentUrl = new URL("/agui/chat", (document.querySelector('meta[name="agent"]') as HTMLMetaElement).content).href;
const agent = new HttpAgent({ url: agentUrl });

const list = document.querySelector("#messages") as HTMLOListElement;
const typing = document.querySelector("#typing") as HTMLParagraphElement;
const error = document.querySelector("#error") as HTMLParagraphElement;
const form = document.querySelector("#composer") as HTMLFormElement;

function render(messages: readonly Readonly<Message>[]) {
  list.replaceChildren(
    ...messages
      .filter((m) => (m.role === "user" || m.role === "assistant") && typeof m.content === "string" && m.content !== "")
      .map((m) => {
        const item = document.createElement("li");
        item.className = m.role;
        item.dataset.testid = `${m.role}-message`;
        item.textContent = m.content as string;
        return item;
      }),
  );
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const input = form.elements.namedItem("message") as HTMLInputElement;
  const content = input.value.trim();
  if (content === "") return;
  input.value = "";
  error.hidden = true;
  agent.addMessage({ id: crypto.randomUUID(), role: "user", content });
  render(agent.messages);
  typing.hidden = false;
  let failure: string | undefined;
  try {
    await agent.runAgent(
      {},
      {
        onTextMessageContentEvent: () => {
          typing.hidden = true;
        },
        onMessagesChanged: ({ messages }) => render(messages),
        onRunErrorEvent: ({ event }) => {
          failure = event.message;
        },
      },
    );
  } catch (err) {
    failure ??= err instanceof Error ? err.message : String(err);
  } finally {
    typing.hidden = true;
  }
  if (failure !== undefined) {
    error.textContent = `The agent failed: ${failure}`;
    error.hidden = false;
  }
});
