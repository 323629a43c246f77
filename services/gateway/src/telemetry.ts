import { join } from 'node:path';
import { startTelemetryWhenEntryPoint } from '@crm/shared/telemetry';

// The first import of main.ts: tracing must start before express and pg are loaded.
startTelemetryWhenEntryPoint('gateway', join(__dirname, 'main'));
