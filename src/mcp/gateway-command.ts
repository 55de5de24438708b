// The upstream as the operator writes it: a command line split the way a shell would (quotes and
// backslashes, no expansion, no shell ever runs it), and the server's name derived from it.
import { InputError } from '../errors.js';

/** Split `COMMAND ARGS` into words: '...' literal, "..." with \" \\ escapes, \x outside quotes. */
export function splitCommand(text: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === '\\' && i + 1 < text.length && '"\\$`'.includes(text[i + 1])) word += text[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\') {
      if (i + 1 >= text.length) throw new InputError('ERR_INPUT', 'upstream command ends with a lone backslash', [{ path: '', message: 'trailing backslash' }]);
      word += text[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) throw new InputError('ERR_INPUT', `upstream command has an unterminated ${quote} quote`, [{ path: '', message: 'unterminated quote' }]);
  if (inWord) words.push(word);
  if (words.length === 0) throw new InputError('ERR_INPUT', 'upstream command is empty', [{ path: '', message: 'empty' }]);
  return words;
}

// Launchers whose own name says nothing about the server they start.
const LAUNCHERS = new Set(['node', 'nodejs', 'npx', 'npm', 'pnpm', 'pnpx', 'yarn', 'bun', 'bunx', 'deno', 'python', 'python3', 'uv', 'uvx', 'pipx', 'docker', 'podman', 'tsx', 'env', 'exec', 'run', 'dlx']);
const GENERIC = new Set(['index', 'main', 'server', 'cli', 'dist', 'build', 'bin', 'src', 'lib', 'mcp', 'sse', 'app', 'api', 'www', 'v1', 'v2']);

function clean(name: string): string | undefined {
  const n = name.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[-._]+|[-._]+$/g, '');
  return n.length > 0 && n.length <= 64 ? n : undefined;
}

/** `@modelcontextprotocol/server-everything`, `mcp-server-git`, `weather-mcp` -> everything, git, weather. */
function fromPackageLike(word: string): string | undefined {
  const m = /(?:^|[/@\\])(?:mcp-)?server-([a-z0-9][a-z0-9_.-]*?)(?:@[^/]*)?(?:[/\\]|$)/i.exec(word) ?? /(?:^|[/@\\])([a-z0-9][a-z0-9_.-]*?)-mcp(?:-server)?(?:@[^/]*)?(?:[/\\]|$)/i.exec(word);
  return m ? clean(m[1]) : undefined;
}

/** A name for policy and entries: from a package-like word, else the first telling path segment. */
export function serverNameOfCommand(words: string[]): string {
  for (const w of words) {
    const n = fromPackageLike(w);
    if (n) return n;
  }
  for (const w of words) {
    if (w.startsWith('-')) continue;
    const segments = w.split(/[/\\]/).filter(Boolean).reverse();
    for (const s of segments) {
      const base = s.replace(/\.(m?[jt]s|cjs|py|sh|exe)$/i, '');
      if (LAUNCHERS.has(base.toLowerCase()) || GENERIC.has(base.toLowerCase()) || base.startsWith('.')) continue;
      const n = clean(base);
      if (n) return n;
    }
  }
  return 'upstream';
}

/** From a URL: a telling path segment (not `mcp`, `sse`), else the host's first telling label. */
export function serverNameOfUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new InputError('ERR_INPUT', `upstream URL ${JSON.stringify(url)} is not a URL`, [{ path: '', message: 'not a URL' }]);
  }
  const segments = u.pathname.split('/').filter(Boolean).reverse();
  for (const s of segments) {
    if (GENERIC.has(s.toLowerCase())) continue;
    const n = fromPackageLike(s) ?? clean(s);
    if (n) return n;
  }
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (/^[\d.]+$/.test(host) || host.includes(':') || host === 'localhost') return clean(`${host === 'localhost' ? 'localhost' : 'local'}-${u.port || (u.protocol === 'https:' ? '443' : '80')}`) ?? 'upstream';
  const labels = host.split('.').slice(0, -1); // not the top-level domain
  return clean(labels.find((l) => !GENERIC.has(l.toLowerCase())) ?? host) ?? 'upstream';
}
