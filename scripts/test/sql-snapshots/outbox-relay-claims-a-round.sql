-- The outbox relay's claim of one round (libs/shared/src/events/relay.ts claimRoundSql)
WITH locked AS (
  SELECT seq,
    event_count
  FROM event_outbox
  WHERE published_at IS NULL
  ORDER BY seq
  LIMIT $1
  FOR UPDATE SKIP LOCKED
),
counted AS (
  SELECT seq,
    sum(event_count) OVER (ORDER BY seq) AS upto,
    row_number() OVER (ORDER BY seq) AS n,
    count(*) OVER () AS locked
  FROM locked
)
SELECT o.seq,
  o.id,
  o.envelope,
  o.event_count,
  c.locked
FROM counted c
JOIN event_outbox o ON o.seq = c.seq
WHERE c.n = 1
  OR c.upto <= $2
ORDER BY o.seq
