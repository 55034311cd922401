-- Revenue per month and payment method (dbt model: refs are resolved by dbt).
SELECT
    DATE_TRUNC('month', paid_on) AS revenue_month,
    payment_method,
    SUM(amount_eur) AS revenue_eur
FROM {{ ref('stg_payments') }}
WHERE status = 'succeeded'
GROUP BY 1, 2
