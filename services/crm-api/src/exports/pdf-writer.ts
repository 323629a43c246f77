import type { ServerResponse } from 'node:http';
import type PDFKit from 'pdfkit';
import { readableText } from './cell-text';
import type { ExportContext, ExportWriter } from './export-writer';
import { OutputStream } from './output-stream';

/** pdfkit is loaded on the first PDF export, not at start-up (about 23 MB an idle crm-api saves). */
function loadPdfKit(): typeof PDFKit {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use
  return require('pdfkit') as typeof PDFKit;
}

/** PDF bytes allowed to wait for the response before the batch loop pauses. */
const MAX_PENDING_BYTES = 256 * 1024;
const MARGIN = 36;
const FONT_SIZE = 8;
const CELL_PADDING = 3;
/** Longer cells are shortened with an ellipsis so one row never outgrows a page. */
const MAX_CELL_CHARS = 160;
const STRIPE = '#f2f4f7';
const RULE = '#c8ccd2';

// The built-in Helvetica speaks WinAnsi (Latin-1 and the cp1252 extras such as € – “ ”).
const NOT_WIN_ANSI = /[^\x20-\x7e\xa0-\xff€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ]/gu;

/** Text the built-in font can draw: line breaks become spaces, other characters `?`. */
function printable(text: string): string {
  const flat = text.replace(/[\r\n\t]+/g, ' ').replace(NOT_WIN_ANSI, '?');
  return flat.length > MAX_CELL_CHARS ? `${flat.slice(0, MAX_CELL_CHARS - 1)}…` : flat;
}

/**
 * A readable report through pdfkit: landscape A4, a title with the tenant's name and the
 * date, a table whose header repeats on every page, and "Page N" in each footer. Pages are
 * streamed as they fill, so the total page count is not known when a footer is drawn.
 */
export function pdfWriter(res: ServerResponse, ctx: ExportContext): ExportWriter {
  const title = `${ctx.resource.title} export`;
  const date = ctx.generatedAt.toISOString().slice(0, 10);
  const doc = new (loadPdfKit())({
    size: 'A4',
    layout: 'landscape',
    margin: MARGIN,
    info: { Title: title, Author: ctx.tenantName, CreationDate: ctx.generatedAt },
  });
  const output = new OutputStream(doc, res);

  const tableWidth = doc.page.width - 2 * MARGIN;
  const totalWeight = ctx.columns.reduce((sum, c) => sum + c.pdfWidth, 0);
  const widths = ctx.columns.map((c) => (c.pdfWidth / totalWeight) * tableWidth);
  const bottom = () => doc.page.height - MARGIN;
  let page = 1;
  let rowCount = 0;
  let y = MARGIN;

  function footer(): void {
    // Text below the bottom margin would make pdfkit start a page; lift the margin meanwhile.
    const margin = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc
      .font('Helvetica')
      .fontSize(FONT_SIZE)
      .fillColor('#555555')
      .text(`Page ${page}`, MARGIN, doc.page.height - MARGIN / 2 - FONT_SIZE / 2, {
        width: tableWidth,
        align: 'center',
        lineBreak: false,
      });
    doc.page.margins.bottom = margin;
  }

  function rowHeight(cells: string[]): number {
    doc.fontSize(FONT_SIZE);
    const heights = cells.map((text, i) =>
      doc.heightOfString(text || ' ', { width: widths[i] - 2 * CELL_PADDING }),
    );
    return Math.max(...heights) + 2 * CELL_PADDING;
  }

  function drawRow(cells: string[], font: string, fill?: string): void {
    doc.font(font);
    const height = rowHeight(cells);
    if (y + height > bottom()) newPage();
    if (fill) doc.rect(MARGIN, y, tableWidth, height).fill(fill);
    let x = MARGIN;
    doc.fillColor('#111111');
    cells.forEach((text, i) => {
      doc.text(text, x + CELL_PADDING, y + CELL_PADDING, { width: widths[i] - 2 * CELL_PADDING });
      x += widths[i];
    });
    y += height;
    doc
      .moveTo(MARGIN, y)
      .lineTo(MARGIN + tableWidth, y)
      .lineWidth(0.5)
      .strokeColor(RULE)
      .stroke();
  }

  function tableHeader(): void {
    drawRow(
      ctx.columns.map((c) => printable(c.label)),
      'Helvetica-Bold',
      '#dde3ea',
    );
  }

  function newPage(): void {
    doc.addPage();
    page += 1;
    footer();
    doc
      .font('Helvetica')
      .fontSize(FONT_SIZE)
      .fillColor('#555555')
      .text(printable(`${title} - ${ctx.tenantName} - ${date}`), MARGIN, MARGIN, {
        width: tableWidth,
      });
    y = doc.y + 6;
    tableHeader();
  }

  footer();
  doc.font('Helvetica-Bold').fontSize(16).fillColor('#111111').text(title, MARGIN, MARGIN);
  doc
    .font('Helvetica')
    .fontSize(10)
    .fillColor('#333333')
    .text(printable(`Tenant: ${ctx.tenantName}`))
    .text(`Generated: ${date} ${ctx.generatedAt.toISOString().slice(11, 16)} UTC`);
  y = doc.y + 10;
  tableHeader();

  return {
    async write(rows) {
      for (const row of rows) {
        const cells = ctx.columns.map((c) => printable(readableText(row[c.key], c)));
        drawRow(cells, 'Helvetica', rowCount % 2 === 1 ? STRIPE : undefined);
        rowCount += 1;
      }
      await output.wait(() => doc.readableLength > MAX_PENDING_BYTES);
    },
    async end() {
      const summary =
        rowCount === 0
          ? 'No rows match this export.'
          : `${rowCount.toLocaleString('en-US')} ${rowCount === 1 ? 'row' : 'rows'}.`;
      if (y + 20 > bottom()) newPage();
      doc
        .font('Helvetica')
        .fontSize(9)
        .fillColor('#333333')
        .text(summary, MARGIN, y + 8, { width: tableWidth });
      doc.end();
      await output.finish();
    },
    abort: () => output.abort(),
  };
}
