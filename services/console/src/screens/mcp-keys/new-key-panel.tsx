import { useEffect, useRef } from 'react';
import { CopyField } from '../../ui/copy-field';
import { desktopClientConfig, mcpEndpoint, sdkSnippet } from './client-config';

/**
 * The key just created, shown this once (only its hash is stored), with ready client
 * configurations. The heading takes the focus so a screen reader hears the warning first.
 */
export function NewKeyPanel({
  apiKey,
  name,
  onDone,
}: {
  apiKey: string;
  name: string;
  onDone: () => void;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const endpoint = mcpEndpoint(window.location.origin);
  return (
    <section aria-labelledby="new-key-title" className="panel-section new-key">
      <h2 id="new-key-title" ref={heading} tabIndex={-1}>
        Key “{name}” created
      </h2>
      <p role="alert" className="warning">
        Copy the key now: it will not be shown again. Anyone holding it can write into this tenant
        with its scopes until it expires or is revoked.
      </p>
      <CopyField label="API key" copy="Copy key" value={apiKey} />
      <CopyField label="MCP endpoint" copy="Copy endpoint" value={endpoint} />
      <CopyField
        label="Desktop MCP client configuration (JSON)"
        copy="Copy configuration"
        value={desktopClientConfig(endpoint, apiKey)}
        multiline
      />
      <CopyField
        label="TypeScript with @modelcontextprotocol/sdk"
        copy="Copy snippet"
        value={sdkSnippet(endpoint, apiKey)}
        multiline
      />
      <button type="button" onClick={onDone}>
        I have copied the key
      </button>
    </section>
  );
}
