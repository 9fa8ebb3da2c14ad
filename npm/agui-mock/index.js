// Where the agui-mock binary of this platform is: in the package of the platform
// (@agui-mock/cli-<os>-<cpu>), which npm installed as an optional dependency because its
// os and cpu fields match. Nothing is downloaded, at install or at run time.
//
// When that package is missing, npm said nothing: it skips an optional dependency it
// cannot download as quietly as one it was told to omit. So the error has to give both
// causes and the command that installs the package, or that shows npm's own reason why not.

'use strict';

const path = require('node:path');

/** The platforms a binary is published for, as Node names them: `${process.platform}-${process.arch}`. */
const PLATFORMS = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'win32-x64'];

const manifest = require('./package.json');

/** The version of a platform package this launcher runs: the one its optional dependencies name. */
function platformVersion(pkg) {
  return manifest.optionalDependencies?.[pkg] ?? manifest.version;
}

/**
 * Why there is no binary for platform (`${os}-${cpu}`), and what to run instead: an
 * image tag and a Go module version exist for releases only, so others get the latest.
 */
function unsupportedMessage(platform, version = manifest.version) {
  const release = /^\d+\.\d+\.\d+$/.test(version);
  return [
    `agui-mock: no binary is published for ${platform}, only for ${PLATFORMS.join(', ')}. Instead:`,
    `  - run the container image: docker run --rm -p 8000:8000 ghcr.io/agui-mock/agui-mock:${release ? version : 'latest'}`,
    `  - or build it with Go: go install github.com/agui-mock/agui-mock@${release ? `v${version}` : 'latest'}`,
  ].join('\n');
}

/** Why the package of platform is not installed, and the command that installs it. */
function missingMessage(platform, version = platformVersion(`@agui-mock/cli-${platform}`)) {
  const pkg = `@agui-mock/cli-${platform}`;
  return [
    `agui-mock: ${pkg}, the package with this platform's binary, is not installed.`,
    `It is an optional dependency of agui-mock ${manifest.version}, and npm leaves one out without a word when`,
    `  - it was omitted: npm install --omit=optional (or --no-optional, or omit=optional in .npmrc or NPM_CONFIG_OMIT);`,
    `  - npm could not download it: ${pkg}@${version} is not published, or your registry or mirror does not have it.`,
    // --no-save: saved as a dependency, it would fail npm install on every other platform
    `Install it (npm says why if it cannot):`,
    `  npm install --no-save ${pkg}@${version}`,
  ].join('\n');
}

/**
 * The path of the agui-mock binary for a platform, this one unless given; throws, saying
 * what to do, when there is none. resolve finds a module as require.resolve does.
 */
function binaryPath({ platform = process.platform, arch = process.arch, resolve = require.resolve } = {}) {
  const name = `${platform}-${arch}`;
  if (!PLATFORMS.includes(name)) throw new Error(unsupportedMessage(name));
  let pkgJSON;
  try {
    pkgJSON = resolve(`@agui-mock/cli-${name}/package.json`);
  } catch {
    throw new Error(missingMessage(name));
  }
  return path.join(path.dirname(pkgJSON), 'bin', platform === 'win32' ? 'agui-mock.exe' : 'agui-mock');
}

module.exports = { PLATFORMS, binaryPath };
