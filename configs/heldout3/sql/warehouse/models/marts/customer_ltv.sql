-- Lifetime value per customer: paid orders, first and last order, total spend.
WITH paid AS (
    SELECT customer_id, total_eur, created_at FROM raw.orders WHERE status IN ('paid', 'shipped', 'delivered')
)

SELECT
    c.id AS customer_id,
    c.email,
    COUNT(paid.customer_id) AS paid_orders,
    MIN(paid.created_at) AS first_order_at,
    MAX(paid.created_at) AS last_order_at,
    COALESCE(SUM(paid.total_eur), 0) AS lifetime_value_eur
FROM raw.customers AS c
LEFT JOIN paid ON c.id = paid.customer_id
GROUP BY c.id, c.email
