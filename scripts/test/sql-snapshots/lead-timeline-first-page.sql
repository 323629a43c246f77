-- A lead's timeline, first page (libs/records/src/timeline/timeline.repository.ts readTimeline)
/* prepared statement */
WITH rec AS (
  SELECT r.id,
    r.email,
    CASE WHEN regexp_replace(r.phone, '[\s().-]', '', 'g') ~ '^\+[1-9][0-9]{6,14}$' THEN regexp_replace(r.phone, '[\s().-]', '', 'g') END AS phone
  FROM "crm_leads" r
  WHERE r.tenant_id = $1
    AND r.id = $2
)
SELECT rec.id AS record_id,
  i.type,
  i.id,
  i.t AS occurred_at,
  to_char(i.t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS position,
  i.summary,
  i.data
FROM rec
LEFT JOIN LATERAL (
  SELECT *
  FROM ((
    SELECT 'form_submission'::text AS type,
      x.id,
      x.created_at AS t,
      'Submitted form ' || f.name AS summary,
      jsonb_build_object('form_id', f.id, 'form_name', f.name, 'fields', x.payload) AS data
    FROM crm_form_submissions x
    JOIN crm_web_forms f ON f.id = x.form_id
    WHERE x.tenant_id = $3
      AND x.lead_id = $4
      AND true
    ORDER BY x.created_at DESC, x.id DESC
    LIMIT $5
  ) UNION ALL (
    SELECT 'deal'::text AS type,
      x.id,
      x.created_at AS t,
      'Deal created: ' || x.title AS summary,
      jsonb_build_object('title', x.title, 'stage', x.stage, 'value', x.value::text, 'currency', x.currency) AS data
    FROM crm_deals x
    WHERE x.tenant_id = $6
      AND x.lead_id = $7
      AND true
    ORDER BY x.created_at DESC, x.id DESC
    LIMIT $8
  ) UNION ALL (
    SELECT 'activity'::text AS type,
      x.id,
      x.occurred_at AS t,
      initcap(x.type) || COALESCE(': ' || x.subject, '') AS summary,
      jsonb_build_object('activity_type', x.type, 'subject', x.subject, 'deal_id', x.deal_id) AS data
    FROM crm_activities x
    WHERE x.tenant_id = $9
      AND x.lead_id = $10
      AND true
    ORDER BY x.occurred_at DESC, x.id DESC
    LIMIT $11
  ) UNION ALL (
    SELECT 'email_sent'::text AS type,
      m.id,
      m.sent_at AS t,
      'Email sent' || COALESCE(': ' || m.subject, '') AS summary,
      jsonb_build_object('subject', m.subject, 'to_email', m.to_email) AS data
    FROM email_messages m
    WHERE m.tenant_id = $12
      AND m.lead_id = $13
      AND true
    ORDER BY m.sent_at DESC, m.id DESC
    LIMIT $14
  ) UNION ALL (
    SELECT $15::text AS type,
      e.id,
      e.t,
      'Opened email' || COALESCE(': ' || m.subject, '') AS summary,
      jsonb_build_object('message_id', m.id, 'subject', m.subject) AS data
    FROM email_messages m
    CROSS JOIN LATERAL (
      SELECT e.*,
        COALESCE(e.occurred_at, e.created_at) AS t
      FROM "email_opens" e
      WHERE e.tenant_id = $16
        AND e.message_id = m.id
        AND true
      ORDER BY COALESCE(e.occurred_at, e.created_at) DESC, e.id DESC
      LIMIT $17
    ) e
    WHERE m.tenant_id = $18
      AND m.lead_id = $19
    ORDER BY e.t DESC, e.id DESC
    LIMIT $20
  ) UNION ALL (
    SELECT $21::text AS type,
      e.id,
      e.t,
      'Clicked ' || e.target_url AS summary,
      jsonb_build_object('message_id', m.id, 'subject', m.subject, 'target_url', e.target_url) AS data
    FROM email_messages m
    CROSS JOIN LATERAL (
      SELECT e.*,
        COALESCE(e.occurred_at, e.created_at) AS t
      FROM "email_clicks" e
      WHERE e.tenant_id = $22
        AND e.message_id = m.id
        AND true
      ORDER BY COALESCE(e.occurred_at, e.created_at) DESC, e.id DESC
      LIMIT $23
    ) e
    WHERE m.tenant_id = $24
      AND m.lead_id = $25
    ORDER BY e.t DESC, e.id DESC
    LIMIT $26
  ) UNION ALL (
    SELECT $27::text AS type,
      e.id,
      e.t,
      'Replied to email' || COALESCE(': ' || m.subject, '') AS summary,
      jsonb_build_object('message_id', m.id, 'subject', m.subject, 'snippet', e.snippet) AS data
    FROM email_messages m
    CROSS JOIN LATERAL (
      SELECT e.*,
        COALESCE(e.occurred_at, e.created_at) AS t
      FROM "email_replies" e
      WHERE e.tenant_id = $28
        AND e.message_id = m.id
        AND true
      ORDER BY COALESCE(e.occurred_at, e.created_at) DESC, e.id DESC
      LIMIT $29
    ) e
    WHERE m.tenant_id = $30
      AND m.lead_id = $31
    ORDER BY e.t DESC, e.id DESC
    LIMIT $32
  ) UNION ALL (
    SELECT 'chat_message'::text AS type,
      c.id,
      c.t,
      CASE c.direction WHEN 'inbound' THEN 'Message received' ELSE 'Message sent' END || COALESCE(': ' || left(c.body, 140), '') AS summary,
      jsonb_build_object('conversation_id', d.conversation_id, 'direction', c.direction, 'message_type', c.message_type, 'body', c.body) AS data
    FROM chat_conversation_details d
    CROSS JOIN LATERAL (
      SELECT c.*,
        COALESCE(c.sent_at, c.created_at) AS t
      FROM chat_messages c
      WHERE c.tenant_id = $33
        AND c.conversation_id = d.conversation_id
        AND true
      ORDER BY COALESCE(c.sent_at, c.created_at) DESC, c.id DESC
      LIMIT $34
    ) c
    WHERE d.tenant_id = $35
      AND d.contact_email = (
        SELECT email
        FROM rec
      )
    ORDER BY c.t DESC, c.id DESC
    LIMIT $36
  ) UNION ALL (
    SELECT 'call'::text AS type,
      x.id,
      x.created_at AS t,
      'Call' || COALESCE(' (' || x.direction || ')', '') || ': ' || x.status AS summary,
      jsonb_build_object('direction', x.direction, 'from_number', x.from_number, 'to_number', x.to_number, 'status', x.status, 'duration_seconds', x.duration_seconds) AS data
    FROM call_logs x
    WHERE x.tenant_id = $37
      AND x.from_number = (
        SELECT phone
        FROM rec
      )
      AND true
    ORDER BY x.created_at DESC, x.id DESC
    LIMIT $38
  ) UNION ALL (
    SELECT 'call'::text AS type,
      x.id,
      x.created_at AS t,
      'Call' || COALESCE(' (' || x.direction || ')', '') || ': ' || x.status AS summary,
      jsonb_build_object('direction', x.direction, 'from_number', x.from_number, 'to_number', x.to_number, 'status', x.status, 'duration_seconds', x.duration_seconds) AS data
    FROM call_logs x
    WHERE x.tenant_id = $39
      AND x.to_number = (
        SELECT phone
        FROM rec
      )
      AND x.from_number IS DISTINCT FROM (
        SELECT phone
        FROM rec
      )
      AND true
    ORDER BY x.created_at DESC, x.id DESC
    LIMIT $40
  ) UNION ALL (
    SELECT 'order'::text AS type,
      x.id,
      x.created_at AS t,
      'Order ' || COALESCE(x.order_number, x.external_order_id) || COALESCE(' (' || x.status || ')', '') AS summary,
      jsonb_build_object('order_number', x.order_number, 'total', x.total::text, 'currency', x.currency, 'status', x.status) AS data
    FROM commerce_orders x
    WHERE x.tenant_id = $41
      AND x.email = (
        SELECT email
        FROM rec
      )
      AND true
    ORDER BY x.created_at DESC, x.id DESC
    LIMIT $42
  ) UNION ALL (
    SELECT 'payment'::text AS type,
      x.id,
      x.created_at AS t,
      CASE x.kind WHEN 'payment.succeeded' THEN 'Payment succeeded' WHEN 'payment.failed' THEN 'Payment failed' ELSE 'Payment refunded' END || COALESCE(': ' || x.amount::text || COALESCE(' ' || x.currency, ''), '') AS summary,
      jsonb_build_object('kind', x.kind, 'provider', x.provider, 'amount', x.amount::text, 'currency', x.currency) AS data
    FROM payment_events x
    WHERE x.tenant_id = $43
      AND x.email = (
        SELECT email
        FROM rec
      )
      AND true
    ORDER BY x.created_at DESC, x.id DESC
    LIMIT $44
  )) u
  ORDER BY u.t DESC, u.type COLLATE "C" DESC, u.id DESC
  LIMIT $45
) i ON true
ORDER BY i.t DESC, i.type COLLATE "C" DESC, i.id DESC
