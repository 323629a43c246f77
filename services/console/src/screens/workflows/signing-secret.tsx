import { useId } from 'react';

/** A receiver in Node that checks the signature (any Standard Webhooks library does the same). */
export function verifySnippet(secret: string): string {
  return `// npm install svix express
const express = require('express');
const { Webhook } = require('svix');

const wh = new Webhook(process.env.CRM_WORKFLOW_SECRET); // ${secret.slice(0, 10)}…
express()
  .post('/hook', express.raw({ type: 'application/json' }), (req, res) => {
    try {
      // Throws on a bad or stale signature. webhook-id is the same on a replay: skip one seen.
      const body = wh.verify(req.body, req.headers);
      console.log(req.headers['webhook-id'], body.record_id);
      res.sendStatus(204);
    } catch {
      res.sendStatus(401);
    }
  })
  .listen(3000);`;
}

/**
 * The signing secret, shown this once (creation and rotation answer it; nothing reads it back),
 * with a receiver-side verification snippet.
 */
export function SigningSecret({ secret }: { secret: string }) {
  const id = useId();
  return (
    <div className="copy-field" role="region" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Signing secret</h2>
      <p>
        Copy it now: it is shown this once. Keep it on your receiver (e.g. as CRM_WORKFLOW_SECRET);
        rotating gives a new one and the old one stops signing at once.
      </p>
      <label htmlFor={`${id}-secret`}>Signing secret</label>
      <input id={`${id}-secret`} readOnly value={secret} size={60} />
      <label htmlFor={`${id}-snippet`}>Verify on your receiver (Node, svix)</label>
      <textarea id={`${id}-snippet`} readOnly rows={18} cols={80} value={verifySnippet(secret)} />
    </div>
  );
}
