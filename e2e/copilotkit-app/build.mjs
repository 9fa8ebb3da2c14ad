// Bundles the page (src/main.tsx) into dist/app.js and dist/app.css with esbuild.
import { build } from "esbuild";

await build({
  entryPoints: { app: "src/main.tsx" },
  bundle: true,
  format: "esm",
  target: "es2022",
  jsx: "automatic",
  outdir: "dist",
  define: { "process.env.NODE_ENV": '"production"' },
  // KaTeX's fonts (a dependency of the chat's markdown) are left out: the chat shows no maths.
  loader: { ".woff": "empty", ".woff2": "empty", ".ttf": "empty" },
  splitting: true,
  minify: true,
  chunkNames: "chunks/[name]-[hash]",
  logLevel: "warning",
});
