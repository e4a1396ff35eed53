/**
 * Just enough of the POSIX shell to read the docs' command lines: comments, quotes, backslash
 * continuations, `$VAR`, `VAR=value` prefixes and the operators `| || && ; &`.
 */

/** One simple command of a shell block. */
export interface ShellCommand {
  /** `VAR=value` words before the program. */
  readonly assignments: Readonly<Record<string, string>>;
  /** Program and arguments, quotes removed. */
  readonly argv: readonly string[];
  /** The line as written (for messages). */
  readonly source: string;
  /** The comment at the end of its line, if any. */
  readonly comment: string;
  /** Ends with `&` (runs in the background). */
  readonly background: boolean;
  /** 1-based line inside the block. */
  readonly line: number;
}

/** Split a shell block into simple commands. `$VAR` is expanded from `env` when given, else kept as written. */
export function shellCommands(text: string, env?: Readonly<Record<string, string | undefined>>): ShellCommand[] {
  // A line ending in a backslash continues on the next one.
  const logical: { text: string; line: number }[] = [];
  const physical = text.split('\n');
  for (let i = 0; i < physical.length; i++) {
    const start = i;
    let line = physical[i] as string;
    while (line.endsWith('\\') && i + 1 < physical.length) line = line.slice(0, -1) + ' ' + (physical[++i] as string).trimStart();
    logical.push({ text: line, line: start + 1 });
  }
  const out: ShellCommand[] = [];
  for (const { text: raw, line } of logical) {
    const src = raw.replace(/^\s*\$ /, '');
    let words: string[] = [];
    let word: string | undefined;
    let comment = '';
    const flush = () => {
      if (word !== undefined) words.push(word);
      word = undefined;
    };
    const end = (background: boolean) => {
      flush();
      if (words.length > 0) out.push(toCommand(words, src.trim(), background, line));
      words = [];
    };
    for (let i = 0; i < src.length; i++) {
      const c = src[i] as string;
      if (c === '#' && word === undefined) {
        comment = src.slice(i + 1).trim();
        break;
      }
      if (c === ' ' || c === '\t') flush();
      else if (c === "'") {
        const close = src.indexOf("'", i + 1);
        if (close < 0) throw new Error(`unclosed ' in: ${src}`);
        word = (word ?? '') + src.slice(i + 1, close);
        i = close;
      } else if (c === '"') {
        let j = i + 1;
        let s = '';
        for (; j < src.length && src[j] !== '"'; j++) {
          if (src[j] === '\\' && j + 1 < src.length) s += src[++j];
          else if (src[j] === '$') {
            const v = variable(src, j, env);
            s += v.value;
            j = v.end - 1;
          } else s += src[j];
        }
        if (j >= src.length) throw new Error(`unclosed " in: ${src}`);
        word = (word ?? '') + s;
        i = j;
      } else if (c === '\\' && i + 1 < src.length) word = (word ?? '') + src[++i];
      else if (c === '$') {
        const v = variable(src, i, env);
        word = (word ?? '') + v.value;
        i = v.end - 1;
      } else if (c === '|' || c === ';' || (c === '&' && src[i + 1] === '&')) {
        end(false);
        if (src[i + 1] === c) i++;
      } else if (c === '&') end(true);
      else word = (word ?? '') + c;
    }
    end(false);
    // The comment belongs to every command of its line.
    for (const cmd of out) if (cmd.line === line && !cmd.comment) (cmd as { comment: string }).comment = comment;
  }
  return out;
}

function variable(src: string, at: number, env: Readonly<Record<string, string | undefined>> | undefined): { value: string; end: number } {
  const m = /^\$(\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_]*)/.exec(src.slice(at));
  if (!m) return { value: '$', end: at + 1 };
  const name = (m[1] as string).replace(/[{}]/g, '');
  return { value: env ? (env[name] ?? '') : m[0], end: at + m[0].length };
}

function toCommand(words: string[], source: string, background: boolean, line: number): ShellCommand {
  const assignments: Record<string, string> = {};
  let i = 0;
  for (; i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i] as string) && words[0] !== 'export'; i++) {
    const [k, ...v] = (words[i] as string).split('=');
    assignments[k as string] = v.join('=');
  }
  return { assignments, argv: words.slice(i), source, comment: '', background, line };
}

/** The shopsync arguments of a command that runs shopsync (`shopsync`, `node bin/shopsync.js`), else undefined. Never through npx: the name is not published. */
export function shopsyncArgs(argv: readonly string[]): string[] | undefined {
  if (argv[0] === 'shopsync') return argv.slice(1);
  if (argv[0] === 'node' && /(^|\/)bin\/shopsync\.js$/.test(argv[1] ?? '')) return argv.slice(2);
  return undefined;
}
