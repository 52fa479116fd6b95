import { Composer, Lexer, LineCounter, Parser, YAMLParseError, type Document } from 'yaml';
import { OpError } from './errors.js';

/**
 * Deepest nesting a caller's document may have, JSON or YAML. The deepest body an op takes is a
 * batch step whose target nests `within` (body, steps, step, args, target: 5 levels, one more per
 * `within`), wrapped in JSON-RPC on /mcp (3 more): 64 leaves room for 50 nested scopes. Parsers
 * recurse once per level, so a deeper document is refused by a linear scan before one reads it.
 */
export const MAX_NESTING_DEPTH = 64;

/** The refusal of a document nested past MAX_NESTING_DEPTH; `what` names it and what nests. */
export function tooDeep(what: string): OpError {
  return new OpError(
    'invalid_argument',
    `${what} deeper than ${MAX_NESTING_DEPTH} levels (MAX_NESTING_DEPTH), the most SwiftBrowse reads; no op's arguments or flow need more. Flatten it.`,
  );
}

/**
 * How deep `text` nests JSON arrays and objects, by a linear scan of brackets outside strings, so
 * a hostile body is refused before anything recursive reads it. Stops once past `limit`.
 */
export function jsonDepth(text: string, limit = MAX_NESTING_DEPTH): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) i++;
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) {
      depth++;
      if (depth > max) max = depth;
      if (max > limit) return max;
    } else if (ch === 0x5d || ch === 0x7d) depth--;
  }
  return max;
}

/**
 * YAML text as one document, like yaml's parseDocument (errors say where: "at line 3, column 5"),
 * refusing text nested past MAX_NESTING_DEPTH. yaml tokenizes and parses in one pass without
 * recursing, holding the open collections (block and flow, read as yaml reads quotes, comments
 * and block scalars) on a stack; only composing the nodes recurses. The stack is checked after
 * every token, so a hostile text is refused a few hundred bytes in, before anything recursive
 * reads it (a 1.75 MB nested flow map blocked the event loop for 9 s).
 */
export function yamlDocument(text: string): Document.Parsed {
  const lines = new LineCounter();
  const parser = new Parser(lines.addNewLine);
  function* tokens() {
    lines.addNewLine(0);
    for (const lexeme of new Lexer().lex(text)) {
      yield* parser.next(lexeme);
      if (parser.stack.length > MAX_NESTING_DEPTH)
        throw tooDeep('The YAML text nests mappings and sequences');
    }
    yield* parser.end();
  }
  let doc: Document.Parsed | undefined;
  for (const next of new Composer().compose(tokens(), true, text.length)) {
    if (!doc) doc = next;
    else {
      const said = 'Source contains more than one document (---); send one flow per request';
      doc.errors.push(new YAMLParseError([next.range[0], next.range[1]], 'MULTIPLE_DOCS', said));
      break;
    }
  }
  // compose(…, true) ends with a document, an empty one for empty text.
  const parsed = doc!;
  for (const e of [...parsed.errors, ...parsed.warnings]) {
    if (e.pos[0] < 0) continue;
    const { line, col } = lines.linePos(e.pos[0]);
    e.message += ` at line ${line}, column ${col}`;
  }
  return parsed;
}
