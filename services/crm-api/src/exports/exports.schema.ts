import { validate } from '@crm/shared/http';
import { z } from 'zod';
import { EXPORT_FORMATS, type ExportFormat } from './export-formats';
import type { ExportColumn } from './export-columns';
import { EXPORT_RESOURCES, type ExportResource } from './export-resources';

const RESOURCE_NAMES = Object.keys(EXPORT_RESOURCES) as ExportResource['name'][];
const FORMAT_NAMES = Object.keys(EXPORT_FORMATS) as ExportFormat['name'][];

export const exportRequestSchema = z.strictObject(
  {
    resource: z.enum(RESOURCE_NAMES, {
      message: `resource must be one of: ${RESOURCE_NAMES.join(', ')}`,
    }),
    format: z.enum(FORMAT_NAMES, { message: `format must be one of: ${FORMAT_NAMES.join(', ')}` }),
    // Checked against the resource's own rules below.
    filters: z.unknown().optional(),
    columns: z.unknown().optional(),
  },
  { error: (issue) => (issue.code === 'invalid_type' ? 'expected a JSON object' : undefined) },
);

export interface ExportRequest {
  resource: ExportResource;
  format: ExportFormat;
  filters: Record<string, unknown>;
  columns: ExportColumn[];
}

function columnsSchema(resource: ExportResource) {
  const allowed = resource.columns.map((c) => c.key);
  return z
    .array(
      z.string().refine((key) => allowed.includes(key), {
        error: (issue) =>
          `unknown column ${JSON.stringify(issue.input)}; allowed for ${resource.name}: ${allowed.join(', ')}`,
      }),
      { message: 'columns must be an array of column names' },
    )
    .min(1, { message: 'columns must name at least one column' })
    .superRefine((keys, ctx) => {
      const seen = new Set<string>();
      keys.forEach((key, index) => {
        if (seen.has(key)) {
          ctx.addIssue({ code: 'custom', path: [index], message: `duplicate column "${key}"` });
        }
        seen.add(key);
      });
    });
}

/**
 * The body of POST /api/exports, or 400 `VALIDATION_ERROR` naming the first problem (an
 * unknown column is named with the resource's allow-list).
 */
export function parseExportRequest(body: unknown): ExportRequest {
  const base = validate(exportRequestSchema, body, 'export request');
  const resource = EXPORT_RESOURCES[base.resource];
  const format = EXPORT_FORMATS[base.format];
  const filters = validate(
    z.object({ filters: resource.filters.optional() }),
    { filters: base.filters ?? undefined },
    'export request',
  ).filters;
  const keys =
    base.columns === undefined
      ? format.name === 'pdf'
        ? resource.pdfDefaultColumns
        : resource.columns.map((c) => c.key)
      : validate(z.object({ columns: columnsSchema(resource) }), base, 'export request').columns;
  const byKey = new Map(resource.columns.map((c) => [c.key, c]));
  return {
    resource,
    format,
    filters: filters ?? {},
    columns: keys.map((key) => byKey.get(key) as ExportColumn),
  };
}
