// Assembles the npm packages that `make npm` builds, all of one version:
// - one package per platform, holding the binary the Makefile cross-compiled into
//   OUT/<platform>/bin, with os and cpu fields so that npm installs only the one that fits;
// - agui-mock, the launcher, which lists them all as optional dependencies of its version;
// - with --clients, each client package the Makefile built in a directory of CLIENTS
//   (OUT/<directory>): its manifest at this version, and its files. In the repository a
//   client depends on another through a file: path (file:../client), which would break in
//   a user's project, so such dependencies become this exact version: the package that
//   the same `make npm` wrote beside it.
//
//   node npm/pack.mjs [--clients CLIENTS] OUT VERSION PLATFORM...

import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
let clients;
if (args[0] === '--clients') {
  clients = args[1];
  args.splice(0, 2);
}
const [out, version, ...platforms] = args;
if (!out || !version || platforms.length === 0 || (clients !== undefined && !clients)) {
  console.error('usage: node npm/pack.mjs [--clients CLIENTS] OUT VERSION PLATFORM...');
  process.exit(2);
}
const here = import.meta.dirname;
const launcher = JSON.parse(readFileSync(path.join(here, 'agui-mock', 'package.json'), 'utf8'));
const { PLATFORMS } = await import('./agui-mock/index.js');

for (const platform of platforms) {
  if (!PLATFORMS.includes(platform)) throw new Error(`${platform} is not one of ${PLATFORMS.join(', ')}`);
  const [os, cpu] = platform.split('-');
  const dir = path.join(out, platform);
  const exe = os === 'win32' ? 'agui-mock.exe' : 'agui-mock';
  if (!existsSync(path.join(dir, 'bin', exe))) throw new Error(`${dir}/bin/${exe} was not built`);
  const manifest = {
    name: `@agui-mock/cli-${platform}`,
    version,
    description: `The agui-mock binary for ${platform}: installed by the agui-mock package`,
    repository: launcher.repository,
    os: [os],
    cpu: [cpu],
    files: ['bin'],
    preferUnplugged: true,
  };
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
  writeFileSync(path.join(dir, 'README.md'), `# ${manifest.name}\n\nThe agui-mock binary for ${platform}. Install [agui-mock](https://www.npmjs.com/package/agui-mock), which picks this package on ${platform}.\n`);
}

const dir = path.join(out, 'agui-mock');
cpSync(path.join(here, 'agui-mock'), dir, { recursive: true });
launcher.version = version;
launcher.optionalDependencies = Object.fromEntries(PLATFORMS.map((p) => [`@agui-mock/cli-${p}`, version]));
writeFileSync(path.join(dir, 'package.json'), JSON.stringify(launcher, null, 2) + '\n');
const written = ['agui-mock', ...platforms.map((p) => `@agui-mock/cli-${p}`)];

if (clients) {
  const dirs = readdirSync(clients, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  const manifests = new Map(dirs.map((d) => [d, JSON.parse(readFileSync(path.join(clients, d, 'package.json'), 'utf8'))]));
  const ours = new Set([...written, ...[...manifests.values()].map((m) => m.name)]);
  for (const [d, manifest] of manifests) {
    const src = path.join(clients, d);
    const dir = path.join(out, d);
    if (existsSync(dir)) throw new Error(`${dir} exists: a client directory may not be named as a platform or agui-mock`);
    for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies']) {
      for (const [name, spec] of Object.entries(manifest[field] ?? {})) {
        if (!/^(file|link|workspace):/.test(spec)) continue;
        if (!ours.has(name)) throw new Error(`${manifest.name} depends on ${name} at ${spec}, which is not one of the packages written here`);
        manifest[field][name] = version;
      }
    }
    manifest.version = version;
    // the directory holds the build already: a build script of the source tree (prepublishOnly
    // runs `npm run build`, whose tsconfig.json is not copied) would fail in it at npm publish
    delete manifest.scripts;
    for (const file of manifest.files ?? []) {
      if (!existsSync(path.join(src, file))) throw new Error(`${src}/${file} is missing: was ${manifest.name} built?`);
      cpSync(path.join(src, file), path.join(dir, file), { recursive: true });
    }
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
    written.push(manifest.name);
  }
}
console.log(`npm packages of agui-mock ${version} in ${out}: ${written.join(', ')}`);
