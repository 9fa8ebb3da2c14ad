// Assembles the npm packages that `make npm` builds: one package per platform, holding
// the binary the Makefile cross-compiled into OUT/<platform>/bin, with os and cpu fields
// so that npm installs only the one that fits; and agui-mock, the launcher, which lists
// them all as optional dependencies of its own version.
//
//   node npm/pack.mjs OUT VERSION PLATFORM...

import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const [out, version, ...platforms] = process.argv.slice(2);
if (!out || !version || platforms.length === 0) {
  console.error('usage: node npm/pack.mjs OUT VERSION PLATFORM...');
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
console.log(`npm packages of agui-mock ${version} in ${out}: agui-mock, ${platforms.map((p) => `@agui-mock/cli-${p}`).join(', ')}`);
