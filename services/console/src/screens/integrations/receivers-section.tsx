import { CopyField } from '../../ui/copy-field';
import { QueryStates } from '../../ui/states';
import { useReceivers } from './use-integrations';

/** Per provider kind: the receiver URL to register, with a Copy button, and what it needs. */
export function ReceiversSection() {
  const receivers = useReceivers();
  return (
    <section aria-labelledby="receivers-title" className="panel-section">
      <h2 id="receivers-title">Receiver URLs</h2>
      <p className="muted">
        Register these in each provider&apos;s webhook settings. A storefront or payment connection
        is verified with its own webhook secret; the other providers sign with the platform&apos;s
        secret, and a number or account is proven by its verification URL.
      </p>
      <QueryStates
        query={receivers}
        what="the receiver URLs"
        isEmpty={(data) => data.length === 0}
        empty={<p>No receivers are offered.</p>}
      >
        {(data) => (
          <ul className="receivers">
            {data.map((receiver) => (
              <li key={receiver.kind}>
                <h3>{receiver.name}</h3>
                <CopyField
                  label={`${receiver.name} receiver URL`}
                  copy="Copy URL"
                  value={receiver.url}
                />
                <p>
                  <strong>Secret:</strong> {receiver.secret}
                  {receiver.platformSecretSet !== null &&
                    (receiver.platformSecretSet
                      ? ' (set on this platform)'
                      : ' (not set on this platform yet)')}
                </p>
                <p>
                  <strong>Headers:</strong>{' '}
                  {receiver.headers.map((header, i) => (
                    <span key={header.name}>
                      {i > 0 && '; '}
                      <code>{header.name}</code> ({header.carries})
                    </span>
                  ))}
                </p>
              </li>
            ))}
          </ul>
        )}
      </QueryStates>
    </section>
  );
}
