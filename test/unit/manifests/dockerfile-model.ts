// Reads the Dockerfile and .dockerignore the way Docker does, for tests that cannot run a Docker engine: instructions
// with their line continuations and stages, exec-form arguments, and .dockerignore's pattern matching (moby's
// patternmatcher: the last pattern that matches a path or one of its parent directories decides, `!` re-includes).

export interface Instruction {
  /** Upper-case keyword: FROM, RUN, COPY, ... */
  keyword: string;
  /** The rest of the instruction, continuations joined with a space. */
  args: string;
  line: number;
}

export interface Stage {
  /** The `AS` name, or the stage's index when it has none. */
  name: string;
  /** The image of FROM, with ${ARG} references replaced by the ARGs declared before the first FROM. */
  from: string;
  instructions: Instruction[];
}

export interface Dockerfile {
  /** ARGs before the first FROM (name -> default). */
  globalArgs: Record<string, string>;
  stages: Stage[];
}

export function parseDockerfile(text: string): Dockerfile {
  const instructions: Instruction[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const first = lines[i] as string;
    if (/^\s*(#|$)/.test(first)) continue;
    const start = i + 1;
    let body = first.trimEnd();
    while (body.endsWith('\\') && i + 1 < lines.length) {
      body = body.slice(0, -1);
      i++;
      const next = lines[i] as string;
      if (/^\s*#/.test(next)) continue; // comment lines inside a continuation are dropped
      body += ` ${next.trim()}`;
    }
    const m = /^\s*([A-Za-z]+)\s*(.*)$/.exec(body);
    if (!m) throw new Error(`Dockerfile line ${start}: cannot parse "${first}"`);
    instructions.push({ keyword: (m[1] as string).toUpperCase(), args: (m[2] as string).trim(), line: start });
  }
  const globalArgs: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const ins of instructions) {
    if (ins.keyword === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(ins.args);
      if (!m) throw new Error(`Dockerfile line ${ins.line}: cannot parse FROM ${ins.args}`);
      const from = expandArgs(m[1] as string, globalArgs, ins.line);
      stages.push({ name: m[2] ?? String(stages.length), from, instructions: [] });
    } else if (stages.length === 0) {
      if (ins.keyword !== 'ARG') throw new Error(`Dockerfile line ${ins.line}: ${ins.keyword} before the first FROM`);
      const [name, value = ''] = ins.args.split('=', 2) as [string, string?];
      globalArgs[name.trim()] = expandArgs(value.trim(), globalArgs, ins.line);
    } else {
      (stages[stages.length - 1] as Stage).instructions.push(ins);
    }
  }
  return { globalArgs, stages };
}

/** `text` with its ${ARG} and $ARG references replaced by the ARGs declared so far. */
function expandArgs(text: string, args: Record<string, string>, line: number): string {
  return text.replace(/\$\{(\w+)\}|\$(\w+)/g, (_all, a?: string, b?: string) => {
    const name = (a ?? b) as string;
    const value = args[name];
    if (value === undefined) throw new Error(`Dockerfile line ${line}: ARG ${name} is not declared`);
    return value;
  });
}

/** The JSON array of an exec-form instruction (ENTRYPOINT ["node", "x"]), or undefined for shell form. */
export function execForm(args: string): string[] | undefined {
  if (!args.startsWith('[')) return undefined;
  const parsed: unknown = JSON.parse(args);
  if (!Array.isArray(parsed) || !parsed.every((a) => typeof a === 'string')) return undefined;
  return parsed;
}

/** The variables of an ENV instruction: `ENV A=1 B="two words"`, or the legacy `ENV A value`. */
export function envArgs(args: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!/^\S+=/.test(args)) {
    const m = /^(\S+)\s+(.*)$/.exec(args);
    if (!m) throw new Error(`ENV ${args}: needs a name and a value`);
    out[m[1] as string] = m[2] as string;
    return out;
  }
  for (const m of args.matchAll(/(\w+)=("(?:[^"\\]|\\.)*"|\S*)/g)) {
    const raw = m[2] as string;
    out[m[1] as string] = raw.startsWith('"') ? (JSON.parse(raw) as string) : raw;
  }
  return out;
}

/** COPY's sources and destination, and its --from stage (undefined: the build context). */
export function copyArgs(args: string): { from: string | undefined; sources: string[]; dest: string } {
  const words = args.split(/\s+/);
  let from: string | undefined;
  while (words[0]?.startsWith('--')) {
    const flag = words.shift() as string;
    const m = /^--from=(.+)$/.exec(flag);
    if (m) from = m[1];
  }
  if (words.length < 2) throw new Error(`COPY ${args}: needs a source and a destination`);
  const dest = words.pop() as string;
  return { from, sources: words, dest };
}

function patternToRegExp(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === '*') {
      if (pattern[i + 1] === '*') {
        i++;
        if (pattern[i + 1] === '/') {
          i++;
          re += '(?:.*/)?';
        } else {
          re += '.*';
        }
      } else {
        re += '[^/]*';
      }
    } else if (c === '?') {
      re += '[^/]';
    } else {
      re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${re}$`);
}

/** A predicate: is this context path (relative, "/"-separated) sent to the builder? */
export function dockerignore(text: string): (path: string) => boolean {
  const rules = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const exclude = !l.startsWith('!');
      const pattern = (exclude ? l : l.slice(1)).trim().replace(/^\/+/, '').replace(/\/+$/, '');
      return { exclude, re: patternToRegExp(pattern) };
    });
  return (path: string) => {
    const parts = path.split('/');
    const candidates = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
    let excluded = false;
    for (const rule of rules) {
      if (candidates.some((c) => rule.re.test(c))) excluded = rule.exclude;
    }
    return !excluded;
  };
}
