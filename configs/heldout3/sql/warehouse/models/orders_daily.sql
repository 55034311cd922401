-- Daily order counts and revenue per sales channel, for the finance dashboard.
select
    o.created_at::date as order_date,
    o.channel,
    count(*) as orders,
    SUM(o.total_eur) as revenue_eur,
    avg(o.total_eur)   as avg_order_eur
from raw.orders o
where o.status in ('paid', 'shipped','delivered')
group by 1, 2
order by order_date desc, channel
