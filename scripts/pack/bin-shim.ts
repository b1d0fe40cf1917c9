// The file a package's "bin" names: a preamble in the oldest JavaScript (CommonJS, ES5) that any Node.js parses and
// runs, which checks the version the package's engines field asks for before it loads the real entry point. The
// entry points are ES modules that older Node.js cannot run (Node 20 strips no types, and has no import.meta.main),
// so without the preamble they fail in ways that name nothing, or exit 0 having done nothing.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { PackError } from './stage.ts';

export interface BinShim {
  /** The command's name, as the message names it. */
  command: string;
  /** The package's engines.node: `>=<major>` or `>=<major>.<minor>`. */
  engines: string;
  /** The compiled entry module, relative to the package folder. */
  entry: string;
  /**
   * The entry's export to call with the arguments and a line writer, whose number is the exit status; without it,
   * importing the entry runs the command (it sets its own exit status).
   */
  run?: string;
}

/** [major, minor] of an engines range `>=X` or `>=X.Y`; anything else is refused. */
export function minimumNode(engines: string): [number, number] {
  const m = /^>=\s*(\d+)(?:\.(\d+))?(?:\.\d+)?$/.exec(engines.trim());
  if (!m) throw new PackError(`engines.node "${engines}" is not ">=<major>[.<minor>]": a bin cannot check it`);
  return [Number(m[1]), Number(m[2] ?? 0)];
}

export function binShimSource(shim: BinShim, shimPath: string): string {
  const [major, minor] = minimumNode(shim.engines);
  const entry = relative(dirname(shimPath), shim.entry).split('\\').join('/');
  const run = shim.run
    ? `function (m) {\n    process.exitCode = m[${JSON.stringify(shim.run)}](process.argv.slice(2), function (line) {\n      console.log(line);\n    });\n  }`
    : 'function () {}';
  return `#!/usr/bin/env node
// ${shim.command}: checks the Node.js version, then loads ${shim.entry}.
// ES5 and CommonJS on purpose: an older Node.js must get far enough to say which version it needs, and exit 1.
'use strict';
var need = [${major}, ${minor}];
var have = process.versions.node.split('.').map(Number);
if (have[0] < need[0] || (have[0] === need[0] && have[1] < need[1])) {
  process.stderr.write(
    ${JSON.stringify(`${shim.command}: needs Node.js ${shim.engines}; this is Node.js `)} + process.versions.node + ' (' + process.execPath + ')\\n'
  );
  process.exit(1);
}
// import() kept out of the parsed source: a Node.js too old for it still reaches the check above.
var load = new Function('specifier', 'return import(specifier)');
var url = require('url').pathToFileURL(require('path').join(__dirname, ${JSON.stringify(entry)})).href;
load(url).then(
  ${run},
  function (err) {
    process.stderr.write(${JSON.stringify(`${shim.command}: `)} + (err && err.stack ? err.stack : String(err)) + '\\n');
    process.exit(1);
  }
);
`;
}

/** Writes the preamble at `shimPath` (relative to the stage), executable. */
export function writeBinShim(stage: string, shimPath: string, shim: BinShim): void {
  const file = join(stage, shimPath);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, binShimSource(shim, shimPath));
  chmodSync(file, 0o755);
}
