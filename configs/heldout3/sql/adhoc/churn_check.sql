-- Quick check for the churn meeting: customers with no order in the last 90 days.
select c.id, c.email, max(o.created_at) as last_order
from raw.customers c
left join raw.orders o on o.customer_id = c.id
group by c.id, c.email
having max(o.created_at) < now() - interval '90 days' or max(o.created_at) is null
