import type { ExportColumn, ExportRow } from './export-columns';
import type { ExportResource } from './export-resources';

/** What every format knows about the file it writes. */
export interface ExportContext {
  resource: ExportResource;
  columns: ExportColumn[];
  tenantName: string;
  generatedAt: Date;
}

/** One file being streamed into the response, fed batch by batch. */
export interface ExportWriter {
  /** Adds rows; resolves once the output can take more (backpressure). */
  write(rows: ExportRow[]): Promise<void>;
  /** Completes the file; resolves once its last byte was handed to the response. */
  end(): Promise<void>;
  /** Tears the output down after a failure: the response is destroyed, not ended. */
  abort(): void;
}
