-- One row per payment attempt, amounts in cents converted to euros.
SELECT
    p.id AS payment_id,
    p.order_id,
    p.method AS payment_method,
    p.status,
    p.amount_cents / 100.0 AS amount_eur,
    p.created_at::date AS paid_on
FROM raw.payments AS p
WHERE p.status <> 'test'
