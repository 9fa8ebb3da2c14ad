// Prints what the specs observed (observations/<project>/*.json, written by every test):
// per test and phase, the page's requests to its runtime and how each ended, the bodies
// of the answers (SSE events one per line, the page's tool list elided), and the console.
//
//   node summarize.mjs [observations/runtime] [--bodies] [--console]
//   node summarize.mjs --compare observations/runtime observations/mock
//
// --compare lines up the two topologies test by test: for each phase, the completed
// requests (sorted, as their order varies between loads), their statuses and the event
// types of each SSE answer, and prints where they differ. Aborted requests are left out:
// whether a load's first connect is aborted depends on timing.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const args = process.argv.slice(2);
const flags = new Set(args.filter((a) => a.startsWith("--")));
const dirs = args.filter((a) => !a.startsWith("--"));

function load(dir) {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => ({ file: f, ...JSON.parse(readFileSync(path.join(dir, f), "utf8")) }));
}

function elideTools(text) {
  return text.replace(/"tools":\[(?:[^\[\]]|\[[^\[\]]*\])*\]/g, '"tools":[…]');
}

function route(e) {
  return `${e.method} ${e.path}`.replace(/\/stop\/[^/?]+$/, "/stop/<thread>").replace(/threads\/[^/?]+\/messages/, "threads/<thread>/messages");
}

function outcome(e) {
  return e.failure ?? (e.status === undefined ? "no answer" : String(e.status));
}

function sseTypes(body) {
  return (body ?? "")
    .split(/\r?\n/)
    .filter((l) => l.startsWith("data:"))
    .map((l) => {
      try {
        return JSON.parse(l.slice(5)).type;
      } catch {
        return "<not JSON>";
      }
    });
}

function phases(o) {
  const byPhase = new Map();
  for (const e of o.exchanges) {
    if (!byPhase.has(e.phase)) byPhase.set(e.phase, []);
    byPhase.get(e.phase).push(e);
  }
  return byPhase;
}

if (flags.has("--compare")) {
  const [a, b] = dirs;
  const right = new Map(load(b).map((o) => [o.file, o]));
  let differences = 0;
  for (const l of load(a)) {
    const r = right.get(l.file);
    if (!r) {
      console.log(`${l.file}: only in ${a}`);
      continue;
    }
    const lines = [];
    const lp = phases(l);
    const rp = phases(r);
    for (const phase of new Set([...lp.keys(), ...rp.keys()])) {
      const digest = (list = []) =>
        list
          .filter((e) => !e.failure)
          .map((e) => `${route(e)} ${outcome(e)}${e.responseHeaders?.["content-type"]?.includes("event-stream") ? ` [${sseTypes(e.responseBody).join(",")}]` : ""}`)
          .sort() // the order of a load's requests varies from load to load
          .join("\n      ");
      const x = digest(lp.get(phase));
      const y = digest(rp.get(phase));
      if (x !== y) lines.push(`  phase ${phase}:\n    ${a}:\n      ${x}\n    ${b}:\n      ${y}`);
    }
    if (l.status !== r.status) lines.push(`  status: ${l.status} / ${r.status}`);
    if (lines.length) {
      differences++;
      console.log(`${l.test}\n${lines.join("\n")}\n`);
    }
  }
  console.log(differences ? `${differences} test(s) differ` : "no differences in requests and event types");
} else {
  for (const o of load(dirs[0] ?? "observations/runtime")) {
    console.log(`\n=== ${o.test} [${o.project}, ${o.status}]`);
    for (const [phase, list] of phases(o)) {
      console.log(`  -- ${phase}`);
      for (const e of list) {
        console.log(`    ${route(e)} → ${outcome(e)}`);
        if (flags.has("--bodies")) {
          if (e.requestBody !== undefined) console.log(`      request: ${elideTools(JSON.stringify(e.requestBody))}`);
          if (e.responseBody) console.log(`      answer:\n        ${elideTools(e.responseBody).trim().split(/\n+/).join("\n        ")}`);
        }
      }
    }
    if (Object.keys(o.notes ?? {}).length) console.log(`  notes: ${elideTools(JSON.stringify(o.notes))}`);
    if (flags.has("--console")) {
      for (const t of o.timeline) {
        if (t.kind === "mark") console.log(`  [${t.label}]`);
        if (t.kind === "console" || t.kind === "pageerror") console.log(`    ${t.kind === "console" ? t.type : "pageerror"}: ${t.text}`);
        if (t.kind === "http-error") console.log(`    (HTTP ${t.status} for ${t.method} ${t.url})`);
      }
    }
  }
}
