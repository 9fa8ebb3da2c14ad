// Where the agui-mock binary of this platform is: in the package of the platform
// (@agui-mock/cli-<os>-<cpu>), which npm installed as an optional dependency because its
// os and cpu fields match. Nothing is downloaded, at install or at run time.

'use strict';

const path = require('node:path');

/** The platforms a binary is published for, as Node names them: `${process.platform}-${process.arch}`. */
const PLATFORMS = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'win32-x64'];

/** The path of the agui-mock binary for this platform; throws, saying what to do, when there is none. */
function binaryPath() {
  const platform = `${process.platform}-${process.arch}`;
  const pkg = `@agui-mock/cli-${platform}`;
  if (!PLATFORMS.includes(platform)) {
    throw new Error(`agui-mock has no binary for ${platform} (only ${PLATFORMS.join(', ')}): use the container image ghcr.io/agui-mock/agui-mock, or build it with Go (go build github.com/agui-mock/agui-mock)`);
  }
  let manifest;
  try {
    manifest = require.resolve(`${pkg}/package.json`);
  } catch {
    throw new Error(`agui-mock: ${pkg}, the package with this platform's binary, is not installed. It is an optional dependency of agui-mock: install without --omit=optional (or --no-optional), and do not copy node_modules between platforms`);
  }
  return path.join(path.dirname(manifest), 'bin', process.platform === 'win32' ? 'agui-mock.exe' : 'agui-mock');
}

module.exports = { PLATFORMS, binaryPath };
