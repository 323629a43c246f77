import { csvCell, csvCellIsVerbatim } from '../src/exports/cell-text';

/*
 * A cell with a line break of any kind is quoted: a lone LF left bare ends the row for Excel,
 * papaparse (the console's import) and every reader that splits records on LF.
 */
describe('csvCell', () => {
  it.each([
    ['line\nbreak', '"line\nbreak"'],
    ['line\rbreak', '"line\rbreak"'],
    ['line\r\nbreak', '"line\r\nbreak"'],
    ['ends in CR\r', '"ends in CR\r"'],
    ['a, b', '"a, b"'],
    ['say "hi"', '"say ""hi"""'],
    ['plain', 'plain'],
    ['=SUM(A1)', "'=SUM(A1)"],
  ])('writes %j as %j', (text, cell) => {
    expect(csvCell(text)).toBe(cell);
  });

  it('hands every cell with a line break to csvCell instead of copying its bytes', () => {
    for (const text of ['line\nbreak', 'line\rbreak', 'a,b', 'q"']) {
      expect(csvCellIsVerbatim(Buffer.from(text), 0, Buffer.byteLength(text))).toBe(false);
    }
    expect(csvCellIsVerbatim(Buffer.from('plain text'), 0, 10)).toBe(true);
  });
});
