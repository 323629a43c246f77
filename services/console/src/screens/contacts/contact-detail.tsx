import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { Link, useParams } from 'react-router';
import { fetchContact, type Contact } from '../../api/contacts';
import { QueryStates } from '../../ui/states';
import { dateTime } from '../../ui/date-time';

const FIELDS: Array<[keyof Contact, string]> = [
  ['email', 'Email'],
  ['first_name', 'First name'],
  ['last_name', 'Last name'],
  ['phone', 'Phone'],
  ['company', 'Company'],
  ['title', 'Title'],
  ['external_id', 'External id'],
  ['created_at', 'Created'],
  ['updated_at', 'Updated'],
];

/** One contact's fields (GET /api/crm/contacts/:id), next to the list; its address can be shared. */
export function ContactDetail() {
  const { contactId = '' } = useParams();
  const heading = useRef<HTMLHeadingElement>(null);
  const contact = useQuery({
    queryKey: ['contact', contactId],
    queryFn: ({ signal }) => fetchContact(contactId, signal),
    select: (body) => body.data.contact,
  });
  // Opening a contact moves the keyboard focus to its panel.
  useEffect(() => heading.current?.focus(), [contactId, contact.isSuccess]);
  return (
    <aside className="detail" aria-labelledby="contact-title">
      <h2 id="contact-title" ref={heading} tabIndex={-1}>
        {contact.data ? contactName(contact.data) : 'Contact'}
      </h2>
      <QueryStates query={contact} what="the contact">
        {(data) => (
          <dl>
            {FIELDS.map(([field, label]) => (
              <div key={field}>
                <dt>{label}</dt>
                <dd>{show(field, data[field])}</dd>
              </div>
            ))}
            {Object.entries(data.custom_fields ?? {}).map(([key, value]) => (
              <div key={`custom-${key}`}>
                <dt>{key}</dt>
                <dd>{typeof value === 'string' ? value : JSON.stringify(value)}</dd>
              </div>
            ))}
          </dl>
        )}
      </QueryStates>
      <p>
        <Link to={`/activities?contact_id=${encodeURIComponent(contactId)}`}>Its activities</Link>
      </p>
      <p>
        <Link to={`/conversations?contact_id=${encodeURIComponent(contactId)}`}>
          Its conversations
        </Link>
      </p>
      <Link to="/contacts">Close</Link>
    </aside>
  );
}

function contactName(contact: Contact): string {
  return (
    [contact.first_name, contact.last_name].filter(Boolean).join(' ') ||
    contact.email ||
    contact.phone ||
    'Contact'
  );
}

function show(field: keyof Contact, value: Contact[keyof Contact]): string {
  if (value === null || value === undefined || value === '') return '—';
  if (field === 'created_at' || field === 'updated_at') return dateTime(String(value));
  return String(value);
}
