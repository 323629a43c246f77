/*
 * Lays out a compiled statement for reading in a review: each clause (SELECT, FROM, WHERE,
 * JOIN, ORDER BY, ...) on a line of its own, a subquery indented inside its brackets, a
 * select list or SET list one item a line, AND/OR of a WHERE one condition a line. Only white
 * space changes: quoted names, strings and comments are kept as they are, so the text read
 * is the text sent. A `--` comment ends its line (what follows it would otherwise read as
 * commented out), and one that began a line in the statement begins one here too.
 * Deterministic, so a snapshot changes only when the statement does.
 */

const CLAUSES = [
  'with recursive',
  'with',
  'select distinct',
  'select',
  'from',
  'left join lateral',
  'cross join lateral',
  'inner join',
  'left join',
  'right join',
  'full join',
  'cross join',
  'join',
  'where',
  'group by',
  'having',
  'window',
  'order by',
  'limit',
  'offset',
  'for update',
  'for share',
  'insert into',
  'values',
  'update',
  'set',
  'delete from',
  'on conflict',
  'do update set',
  'do nothing',
  'returning',
  'union all',
  'union',
  'except',
  'intersect',
].map((phrase) => phrase.split(' '));

/** Clauses whose commas separate items worth a line each. */
const LISTS = new Set([
  'with',
  'with recursive',
  'select',
  'select distinct',
  'set',
  'do update set',
  'returning',
]);
/** Clauses whose AND/OR separate conditions worth a line each. */
const CONDITIONS = new Set(['where', 'having']);

interface Token {
  text: string;
  /** White space came before it in the statement. */
  spaced: boolean;
  /** That white space held a line break. */
  newline: boolean;
}

/** Words, quoted names, strings, comments, brackets and commas, each one token. */
function tokenize(sql: string): Token[] {
  const pattern =
    /\s+|'(?:[^']|'')*'|"(?:[^"]|"")*"|\/\*[\s\S]*?\*\/|--[^\n]*|\$[0-9]+|[(),;]|[^\s'"(),;]+/g;
  const tokens: Token[] = [];
  let spaced = false;
  let newline = false;
  for (const [text] of sql.matchAll(pattern)) {
    if (/^\s+$/.test(text)) {
      spaced = true;
      newline ||= text.includes('\n');
      continue;
    }
    tokens.push({ text, spaced, newline });
    spaced = false;
    newline = false;
  }
  return tokens;
}

/** Words after which FROM is part of an expression (`ROWS FROM (...)`, `IS DISTINCT FROM`). */
const NOT_A_CLAUSE_AFTER = new Set(['rows', 'distinct']);

/** Words before which WITH is part of an expression (`... WITH ORDINALITY AS r(...)`). */
const NOT_WITH_BEFORE = new Set(['ordinality']);

/** The clause starting at token i (its words matched case-insensitively), if one does. */
function clauseAt(tokens: Token[], i: number): string | undefined {
  if (NOT_A_CLAUSE_AFTER.has(tokens[i - 1]?.text.toLowerCase() ?? '')) return undefined;
  if (
    tokens[i].text.toLowerCase() === 'with' &&
    NOT_WITH_BEFORE.has(tokens[i + 1]?.text.toLowerCase() ?? '')
  ) {
    return undefined;
  }
  const found = CLAUSES.find((words) =>
    words.every((word, k) => tokens[i + k]?.text.toLowerCase() === word),
  );
  return found?.join(' ');
}

export function formatSql(sql: string): string {
  const tokens = tokenize(sql);
  const lines: string[] = [];
  let line = '';
  // One frame per open bracket: a subquery's clauses are indented one step past the line its
  // bracket opens on; a call's or a tuple's brackets change nothing.
  const frames: Array<{ query: boolean; indent: number; clause?: string; list?: boolean }> = [
    { query: true, indent: 0 },
  ];
  const indentOf = (text: string) => (text.length - text.trimStart().length) / 2;
  const breakLine = (indent: number) => {
    if (line.trim()) lines.push(line.trimEnd());
    line = '  '.repeat(indent);
  };
  const put = (token: Token, spaced = token.spaced) => {
    line += line.trim() && spaced ? ` ${token.text}` : token.text;
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    const frame = frames[frames.length - 1];
    const clause = frame.query ? clauseAt(tokens, i) : undefined;
    if (token.text.startsWith('--')) {
      if (token.newline) breakLine(frame.indent);
      put(token);
      breakLine(frame.indent);
    } else if (clause) {
      breakLine(frame.indent);
      const words = clause.split(' ').length;
      for (let k = 0; k < words; k++) put(tokens[i + k], k > 0);
      i += words - 1;
      frame.clause = clause;
    } else if (token.text === '(') {
      put(token);
      const next = tokens[i + 1]?.text.toLowerCase();
      const query = next === 'select' || next === 'with';
      // ROWS FROM's functions, one a line: each is a column of the rows.
      const list = /^rows from$/i.test(`${tokens[i - 2]?.text} ${tokens[i - 1]?.text}`);
      frames.push({ query, list, indent: indentOf(line) + 1 });
      if (list) breakLine(indentOf(line) + 1);
    } else if (token.text === ')') {
      const closed = frames.length > 1 ? frames.pop() : undefined;
      if (closed?.query || closed?.list) breakLine(closed.indent - 1);
      put(token, false);
    } else if (token.text === ',') {
      put(token, false);
      // A WITH's queries are siblings of the statement; a list's items are inside its clause.
      if (frame.query && frame.clause?.startsWith('with')) breakLine(frame.indent);
      else if (frame.query && LISTS.has(frame.clause ?? '')) breakLine(frame.indent + 1);
      else if (frame.list) breakLine(frame.indent);
    } else if (
      /^(and|or)$/i.test(token.text) &&
      frame.query &&
      CONDITIONS.has(frame.clause ?? '')
    ) {
      breakLine(frame.indent + 1);
      put(token);
    } else {
      put(token);
    }
  }
  breakLine(0);
  return `${lines.join('\n')}\n`;
}
