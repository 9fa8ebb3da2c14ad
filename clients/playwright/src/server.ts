// The webServer entry that starts agui-mock for a Playwright run: the binary of the
// agui-mock npm package (or one given), on a port, with scenarios, speed and seed, waited
// for until it is ready. This module does not load @playwright/test.

import { createRequire } from "node:module";
import path from "node:path";

/** How aguiMockServer starts the mock. */
export interface AguiMockServerOptions {
  /** The port to listen on: default 8000. */
  port?: number;
  /** The address to listen on: default 127.0.0.1. */
  host?: string;
  /** Scenario directories or files, relative to the config's directory (--scenarios; watched). */
  scenarios?: string | string[];
  /** The speed factor: 0 plays runs without delays (--speed). */
  speed?: number;
  /** The seed of generated ids and fake data (--seed). */
  seed?: number;
  /**
   * The origins of the app under test, e.g. "http://localhost:3000" (--cors-origins). The
   * page's requests carry X-Test-Id, which the mock takes only from pages of origins it
   * lists: a page of any other origin may not act as a test. Each is http or https, a
   * host and an optional port, and a trailing slash, nothing more: anything else (no
   * scheme, as "localhost:3000"; a path, a query, a fragment; "null"; "") throws an Error
   * naming it and the fix. Patterns such as "http://localhost:*" go in args:
   * ["--cors-origins", "http://localhost:*"].
   */
  appOrigins?: string | string[];
  /**
   * Where the mock serves the CopilotKit runtime's routes, for an app whose runtimeUrl
   * points at the mock (--copilotkit-path): default /copilotkit.
   */
  copilotkitPath?: string;
  /**
   * More flags, e.g. ["--log-level", "debug"]. The tokens of --admin-token and --auth-token
   * (also -admin-token, --admin-token=…) are taken out of them and handed to the binary in
   * its environment, AGUI_MOCK_ADMIN_TOKEN and AGUI_MOCK_AUTH_TOKEN, not on its command
   * line, so that `ps` does not show them.
   */
  args?: string[];
  /** The binary to run: default the one the agui-mock npm package installed for this platform. */
  binary?: string;
  /** Use a mock already listening on the port: default outside CI only, as Playwright suggests. */
  reuseExistingServer?: boolean;
  /** How long to wait for the mock to be ready, in milliseconds: default 30 s. */
  timeout?: number;
}

/** A webServer entry of playwright.config.ts (Playwright's TestConfigWebServer). */
export interface AguiMockWebServer {
  command: string;
  url: string;
  reuseExistingServer: boolean;
  timeout: number;
  stdout: "pipe" | "ignore";
  stderr: "pipe" | "ignore";
  /** Variables set for the binary on top of Playwright's environment: the tokens of args. */
  env?: Record<string, string>;
}

/** The mock's URL, for the mockUrl option and the app's agent, and its webServer entry. */
export interface AguiMockServer {
  /** The mock's base URL, e.g. http://127.0.0.1:8000; the AG-UI endpoint is url + "/agui/chat". */
  url: string;
  webServer: AguiMockWebServer;
}

/** The webServer entry that starts agui-mock, and its URL. */
export function aguiMockServer(options: AguiMockServerOptions = {}): AguiMockServer {
  const { port = 8000, host = "127.0.0.1", speed, seed } = options;
  const scenarios = options.scenarios === undefined ? [] : [options.scenarios].flat();
  const appOrigins = options.appOrigins === undefined ? [] : [options.appOrigins].flat().map(appOrigin);
  const { args, env } = secretsMoved(options.args ?? []);
  const binary = options.binary ?? installedBinary();
  const flags = [
    "--addr", `${host}:${port}`,
    ...scenarios.flatMap((dir) => ["--scenarios", dir]),
    ...appOrigins.flatMap((origin) => ["--cors-origins", origin]),
    ...(speed === undefined ? [] : ["--speed", String(speed)]),
    ...(seed === undefined ? [] : ["--seed", String(seed)]),
    ...(options.copilotkitPath === undefined ? [] : ["--copilotkit-path", options.copilotkitPath]),
    ...args,
  ];
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  return {
    url,
    webServer: {
      command: [binary, ...flags].map(quote).join(" "),
      url: `${url}/_mock/readyz`, // ready, not only alive: a scenario is loaded
      reuseExistingServer: options.reuseExistingServer ?? !process.env.CI,
      timeout: options.timeout ?? 30_000,
      stdout: "pipe",
      stderr: "pipe",
      ...(Object.keys(env).length > 0 ? { env } : {}),
    },
  };
}

/**
 * An origin of appOrigins as the mock lists it, e.g. "http://localhost:3000" for
 * "http://localhost:3000/"; an Error naming the value and the fix for anything that is
 * not an http or https origin, rather than the opaque origin "null" that the URL parser
 * makes of "localhost:3000" and the mock would refuse.
 */
function appOrigin(value: unknown): string {
  const example = "http://localhost:3000";
  const refuse = (why: string) =>
    new Error(`@agui-mock/playwright: appOrigins: ${typeof value === "string" ? JSON.stringify(value) : String(value)} is not an origin: ${why}`);
  if (typeof value !== "string") throw refuse(`give the app's origin as a string, like "${example}"`);
  const text = value.trim();
  if (text === "") throw refuse(`give the app's origin, like "${example}"`);
  if (text === "null") throw refuse(`"null" is the origin of sandboxed and file: pages, which may not act as a test; give the app's origin, like "${example}"`);
  if (text.includes("*")) {
    throw refuse(`appOrigins takes origins, not patterns; give a pattern to the mock itself in args: ["--cors-origins", ${JSON.stringify(text)}]`);
  }
  if (/^\/(?!\/)/.test(text)) throw refuse(`it is a path; give the app's origin, like "${example}"`);
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    throw refuse(`write it with its scheme, like "http://${text.replace(/^\/+/, "").split(/[/?#]/)[0] || "localhost:3000"}"`);
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw refuse(`it does not parse as a URL; give the app's origin, like "${example}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw refuse(`the app's pages are served over http or https, not ${url.protocol.slice(0, -1)}; give its origin, like "${example}"`);
  }
  const bare = `write "${url.origin}"`;
  if (url.username !== "" || url.password !== "") throw refuse(`it has a user name or password; an origin is a scheme, a host and a port alone: ${bare}`);
  if (url.pathname !== "/") throw refuse(`it has a path (${url.pathname}); an origin is a scheme, a host and a port alone: ${bare}`);
  if (url.search !== "" || text.includes("?")) throw refuse(`it has a query; an origin is a scheme, a host and a port alone: ${bare}`);
  if (url.hash !== "" || text.includes("#")) throw refuse(`it has a fragment; an origin is a scheme, a host and a port alone: ${bare}`);
  return url.origin;
}

/** The flags whose values are secrets, and the variables the binary reads them from instead. */
const SECRET_FLAGS = new Map([
  ["admin-token", "AGUI_MOCK_ADMIN_TOKEN"],
  ["auth-token", "AGUI_MOCK_AUTH_TOKEN"],
]);

/**
 * The flags of args without the secret ones, and the variables that carry their values
 * instead: a command line is visible to every user of the machine (`ps`), a process's
 * environment to its own user only. A secret flag without a value stays, for the binary to
 * say so; so does everything after "--", which are no flags.
 */
function secretsMoved(args: readonly string[]): { args: string[]; env: Record<string, string> } {
  const kept: string[] = [];
  const env: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") {
      kept.push(...args.slice(i));
      break;
    }
    const flag = /^--?([a-z-]+)(?:=([\s\S]*))?$/.exec(String(arg));
    const variable = flag ? SECRET_FLAGS.get(flag[1]) : undefined;
    if (!flag || variable === undefined) {
      kept.push(arg);
    } else if (flag[2] !== undefined) {
      env[variable] = flag[2];
    } else if (i + 1 < args.length) {
      env[variable] = String(args[++i]);
    } else {
      kept.push(arg);
    }
  }
  return { args: kept, env };
}

/**
 * The binary of the agui-mock package, found from the project (the directory Playwright
 * runs in), else from this package.
 */
function installedBinary(): string {
  const from = [path.join(process.cwd(), "package.json"), import.meta.url];
  for (const base of from) {
    let pkg: { binaryPath(): string };
    try {
      pkg = createRequire(base)("agui-mock");
    } catch {
      continue;
    }
    return pkg.binaryPath(); // says what is wrong when the platform's package is missing
  }
  throw new Error("@agui-mock/playwright: the agui-mock package is not installed: npm install -D agui-mock (or give aguiMockServer a binary)");
}

/** Quotes a word for the shell Playwright runs the command in. */
function quote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `"${word.replace(/(["\\$`])/g, "\\$1")}"`;
}
