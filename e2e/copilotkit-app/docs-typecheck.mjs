// Type-checks the React (```tsx) blocks of the repository's docs with this app's packages:
// the real @copilotkit/react-core v2 and React they are written for. A block is a whole
// module (a provider setup to copy into an app); Vite's import.meta.env is declared as
// Vite's client types declare it.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "../..");
const docs = ["README.md", ...readdirSync(path.join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
const work = path.join(import.meta.dirname, ".doc-snippets");
rmSync(work, { recursive: true, force: true });
mkdirSync(work);
const files = [];
for (const doc of docs) {
  const text = readFileSync(path.join(root, doc), "utf8");
  [...text.matchAll(/^```tsx\n([\s\S]*?)^```$/gm)].forEach((m, i) => {
    const name = `${doc.replace(/\W+/g, "-")}-${i}.tsx`;
    writeFileSync(path.join(work, name), m[1]);
    files.push(name);
  });
}
if (!files.some((f) => f.startsWith("docs-copilotkit-md"))) throw new Error("docs/copilotkit.md shows no tsx block to type-check");
writeFileSync(path.join(work, "vite-env.d.ts"), "interface ImportMeta { readonly env: Record<string, string | undefined> }\ndeclare module '*.css';\n");
writeFileSync(
  path.join(work, "tsconfig.json"),
  JSON.stringify({ extends: "../tsconfig.json", include: ["*.tsx", "vite-env.d.ts"] }),
);
try {
  execFileSync(process.execPath, [path.join(import.meta.dirname, "node_modules/typescript/bin/tsc"), "-p", work], { stdio: "inherit" });
  console.log(`docs-typecheck: ${files.length} tsx block(s) of the docs type-check`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
