-- The Rennie household's bank transactions, June to 5 December 2026 (ledgerline's schema, migrations 001-006): a joint
-- current account, a credit card, an illustration studio's business account, a euro account for a flat in Altea and a
-- monitor-only account paying a parent's care home; categories, detected recurring payments and one manual instalment plan.
BEGIN TRANSACTION;
CREATE TABLE accounts (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,         -- "US Checking", "US Visa"
  institution TEXT NOT NULL,
  currency TEXT NOT NULL DEFAULT 'USD',
  type TEXT CHECK(type IN ('checking','savings','credit','investment'))
, balance_cents INTEGER, available_balance_cents INTEGER, balance_date TEXT, purpose TEXT NOT NULL DEFAULT 'unknown'
  CHECK(purpose IN ('personal', 'business', 'mixed', 'unknown')), entity_name TEXT, business_use_percent INTEGER
  CHECK(business_use_percent BETWEEN 0 AND 100), context_note TEXT, analysis_treatment TEXT NOT NULL DEFAULT 'include'
  CHECK(analysis_treatment IN ('include', 'monitor_only', 'exclude')));
INSERT INTO "accounts" VALUES(1,'Joint Current','Northmoor Bank','GBP','checking',684215,684215,'2026-12-05','personal',NULL,0,'Household current account; salary, mortgage and bills.','include');
INSERT INTO "accounts" VALUES(2,'Everyday Card','Harbour Card','GBP','credit',-71290,NULL,'2026-12-05','personal',NULL,0,'Paid in full from Joint Current on the 24th.','include');
INSERT INTO "accounts" VALUES(3,'Studio Account','Northmoor Bank','GBP','checking',1142733,1142733,'2026-12-05','business','Rennie Illustration Ltd',100,'Ailsa''s illustration studio; VAT registered, quarterly returns.','include');
INSERT INTO "accounts" VALUES(4,'Euro Account','Lumen','EUR','checking',186455,186455,'2026-12-05','personal',NULL,0,'Running costs of the flat in Altea.','include');
INSERT INTO "accounts" VALUES(5,'Margaret Care Account','Northmoor Bank','GBP','checking',238110,238110,'2026-12-05','personal',NULL,0,'Power of attorney for Margaret Rennie; pays Linden House. Watch that it stays funded; not household spending.','monitor_only');
CREATE TABLE merchant_category_cache (
  merchant_clean TEXT PRIMARY KEY,
  category TEXT NOT NULL,
  source TEXT CHECK(source IN ('rule','llm','manual')),
  confirmed INTEGER DEFAULT 0       -- 1 once manually confirmed
);
INSERT INTO "merchant_category_cache" VALUES('Calderwood Building Soc Mortgage','housing','manual',1);
INSERT INTO "merchant_category_cache" VALUES('Harbourside Coffee','dining','manual',1);
INSERT INTO "merchant_category_cache" VALUES('Hearth Mutual Insurance','insurance','manual',1);
INSERT INTO "merchant_category_cache" VALUES('Nhs Business Services Salary','income','manual',1);
INSERT INTO "merchant_category_cache" VALUES('Quayside Leisure Gym','fitness','manual',1);
INSERT INTO "merchant_category_cache" VALUES('Rennie A Transfer','transfers','manual',1);
INSERT INTO "merchant_category_cache" VALUES('Restaurante El Faro','dining','rule',0);
INSERT INTO "merchant_category_cache" VALUES('Transfer From Joint Current','transfers','manual',1);
INSERT INTO "merchant_category_cache" VALUES('Greenways Supermarket','groceries','manual',1);
INSERT INTO "merchant_category_cache" VALUES('Lantern Noodle Bar','dining','manual',1);
INSERT INTO "merchant_category_cache" VALUES('Tidewater Ferries','travel','manual',1);
INSERT INTO "merchant_category_cache" VALUES('Streamly Subscription','subscriptions','manual',1);
INSERT INTO "merchant_category_cache" VALUES('Podshelf Audiobooks','subscriptions','manual',1);
INSERT INTO "merchant_category_cache" VALUES('Northgrid Energy Dd','utilities','manual',1);
INSERT INTO "merchant_category_cache" VALUES('Fibrelink Broadband','utilities','manual',1);
INSERT INTO "merchant_category_cache" VALUES('Edinbridge Council Tax','taxes','manual',1);
INSERT INTO "merchant_category_cache" VALUES('Payment To Harbour Card','transfers','manual',1);
INSERT INTO "merchant_category_cache" VALUES('Payment Received Thank You','transfers','manual',1);
INSERT INTO "merchant_category_cache" VALUES('Invoice Payment Kestrel Press','income','manual',1);
INSERT INTO "merchant_category_cache" VALUES('Vectorly Pro Plan','subscriptions','manual',1);
INSERT INTO "merchant_category_cache" VALUES('Cowork At the Ropeworks','professional','manual',1);
INSERT INTO "merchant_category_cache" VALUES('Hmrc Vat','taxes','manual',1);
INSERT INTO "merchant_category_cache" VALUES('Comunidad Propietarios Altea','housing','manual',1);
INSERT INTO "merchant_category_cache" VALUES('Mercadona Altea','groceries','manual',1);
INSERT INTO "merchant_category_cache" VALUES('Linden House Care Home','health','manual',1);
INSERT INTO "merchant_category_cache" VALUES('Dwp State Pension','income','manual',1);
INSERT INTO "merchant_category_cache" VALUES('Skyway Air','travel','manual',1);
INSERT INTO "merchant_category_cache" VALUES('Petroco Fuel Carrick','transport','manual',1);
CREATE TABLE quarantine (
  id INTEGER PRIMARY KEY,
  source_file TEXT NOT NULL,
  raw_line TEXT NOT NULL,
  reason TEXT NOT NULL,
  imported_at TEXT NOT NULL
);
CREATE TABLE recurring_groups (
  id INTEGER PRIMARY KEY,
  label TEXT NOT NULL,               -- "Brightstone Training installment"
  expected_amount_cents INTEGER,
  cadence TEXT CHECK(cadence IN ('monthly','weekly','annual','irregular')),
  expected_day INTEGER,              -- day-of-month if monthly
  merchant_clean TEXT,               -- links group to transactions by merchant
  active INTEGER DEFAULT 1
, account_id INTEGER REFERENCES accounts(id), currency TEXT);
INSERT INTO "recurring_groups" VALUES(1,'Calderwood Building Soc Mortgage',-142500,'monthly',1,'Calderwood Building Soc Mortgage',1,1,'GBP');
INSERT INTO "recurring_groups" VALUES(2,'Edinbridge Council Tax',-18900,'monthly',15,'Edinbridge Council Tax',1,1,'GBP');
INSERT INTO "recurring_groups" VALUES(3,'Fibrelink Broadband',-3200,'monthly',9,'Fibrelink Broadband',1,1,'GBP');
INSERT INTO "recurring_groups" VALUES(4,'Hearth Mutual Insurance',-6450,'monthly',20,'Hearth Mutual Insurance',1,1,'GBP');
INSERT INTO "recurring_groups" VALUES(5,'Northgrid Energy Dd',-11963,'monthly',6,'Northgrid Energy Dd',1,1,'GBP');
INSERT INTO "recurring_groups" VALUES(6,'Quayside Leisure Gym',-4200,'monthly',3,'Quayside Leisure Gym',1,1,'GBP');
INSERT INTO "recurring_groups" VALUES(7,'Podshelf Audiobooks',-799,'monthly',18,'Podshelf Audiobooks',1,2,'GBP');
INSERT INTO "recurring_groups" VALUES(8,'Streamly Subscription',-1099,'monthly',11,'Streamly Subscription',1,2,'GBP');
INSERT INTO "recurring_groups" VALUES(9,'Cowork At the Ropeworks',-5500,'monthly',14,'Cowork At the Ropeworks',1,3,'GBP');
INSERT INTO "recurring_groups" VALUES(10,'Vectorly Pro Plan',-2400,'monthly',2,'Vectorly Pro Plan',1,3,'GBP');
INSERT INTO "recurring_groups" VALUES(11,'Comunidad Propietarios Altea',-4500,'monthly',5,'Comunidad Propietarios Altea',1,4,'EUR');
INSERT INTO "recurring_groups" VALUES(12,'Linden House Care Home',-412000,'monthly',1,'Linden House Care Home',1,5,'GBP');
INSERT INTO "recurring_groups" VALUES(13,'Kitchen refit instalments',-62500,'monthly',27,NULL,1,1,'GBP');
CREATE TABLE schema_migrations (filename TEXT PRIMARY KEY);
INSERT INTO "schema_migrations" VALUES('001_init.sql');
INSERT INTO "schema_migrations" VALUES('002_account_balances.sql');
INSERT INTO "schema_migrations" VALUES('003_recurring_scope.sql');
INSERT INTO "schema_migrations" VALUES('004_sync_state.sql');
INSERT INTO "schema_migrations" VALUES('005_account_context.sql');
INSERT INTO "schema_migrations" VALUES('006_account_analysis_treatment.sql');
CREATE TABLE simplefin_account_map (
  simplefin_id TEXT PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id)
);
CREATE TABLE sync_state (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
INSERT INTO "sync_state" VALUES('simplefin_last_attempt','2026-12-05T07:30:00+00:00');
INSERT INTO "sync_state" VALUES('simplefin_last_success','2026-12-05T07:30:00+00:00');
CREATE TABLE transactions (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts(id),
  posted_date TEXT NOT NULL,         -- ISO 8601
  amount_cents INTEGER NOT NULL,     -- negative = outflow; NEVER floats for money
  currency TEXT NOT NULL,
  merchant_raw TEXT NOT NULL,        -- exactly as the bank exported it
  merchant_clean TEXT,               -- normalized display name
  category TEXT,                     -- from the fixed taxonomy
  recurring_group_id INTEGER REFERENCES recurring_groups(id),
  source_file TEXT NOT NULL,
  -- sha256 over (account_id, posted_date, amount_cents, merchant_raw, occurrence_index).
  -- The occurrence index disambiguates genuinely distinct same-day/same-amount/
  -- same-merchant transactions; bank-provided ids live in external_id below so
  -- file imports and SimpleFIN sync of the same period dedupe against each other.
  dedupe_hash TEXT NOT NULL UNIQUE,
  external_id TEXT,                  -- FITID (OFX) or SimpleFIN transaction id
  imported_at TEXT NOT NULL
);
INSERT INTO "transactions" VALUES(1,1,'2026-06-28',318450,'GBP','NHS BUSINESS SERVICES SALARY','Nhs Business Services Salary','income',NULL,'heldout6-seed','4223cbcce803b206fed62ee0bfb9a3eb33ff21c08c125d6e685e08193b41b68a',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(2,1,'2026-07-28',318450,'GBP','NHS BUSINESS SERVICES SALARY','Nhs Business Services Salary','income',NULL,'heldout6-seed','e9d2064f2a577df09a390a5e201ccb3ed084856f57b909e98ca7f6b7ca96b32a',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(3,1,'2026-08-28',318450,'GBP','NHS BUSINESS SERVICES SALARY','Nhs Business Services Salary','income',NULL,'heldout6-seed','cf614c4d7455a0acf6465beb88958d511f8365d3328c342d9f2a9c123773cd9a',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(4,1,'2026-09-28',318450,'GBP','NHS BUSINESS SERVICES SALARY','Nhs Business Services Salary','income',NULL,'heldout6-seed','a8d1e9ac63f5a84b808c45005e7d423961445f81990aa9e5a10fd947c476588c',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(5,1,'2026-10-28',318450,'GBP','NHS BUSINESS SERVICES SALARY','Nhs Business Services Salary','income',NULL,'heldout6-seed','a57e626e22da71d60140ef8d8d313b142ab31ecc12721542cea03602507c8c27',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(6,1,'2026-11-28',318450,'GBP','NHS BUSINESS SERVICES SALARY','Nhs Business Services Salary','income',NULL,'heldout6-seed','8a60eba7f0ab6dd7821a2168f43875d6627ea2647422584fef8db44c9875e37f',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(7,1,'2026-06-01',-142500,'GBP','CALDERWOOD BUILDING SOC MORTGAGE','Calderwood Building Soc Mortgage','housing',1,'heldout6-seed','a87943f47a768dab5a386c498a3048c977932cdaa3d03669ddb83e72663713c6',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(8,1,'2026-07-01',-142500,'GBP','CALDERWOOD BUILDING SOC MORTGAGE','Calderwood Building Soc Mortgage','housing',1,'heldout6-seed','146c187a5e46fc700c8856ba787b6364990ed0cae1277b9373df9104041f773c',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(9,1,'2026-08-01',-142500,'GBP','CALDERWOOD BUILDING SOC MORTGAGE','Calderwood Building Soc Mortgage','housing',1,'heldout6-seed','d7269471d2bdd38b1c3059021cf40113f4d1f21c63506369ac53e009bb52c5fc',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(10,1,'2026-09-01',-142500,'GBP','CALDERWOOD BUILDING SOC MORTGAGE','Calderwood Building Soc Mortgage','housing',1,'heldout6-seed','88721b487fafeaafe3fecc855be88b7abb40f85bda056323774e44d933cd29eb',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(11,1,'2026-10-01',-142500,'GBP','CALDERWOOD BUILDING SOC MORTGAGE','Calderwood Building Soc Mortgage','housing',1,'heldout6-seed','93f02fb2c4563ef7bca7205c35370cd2d1295a63c98a11d664a002acf4aa513f',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(12,1,'2026-11-01',-142500,'GBP','CALDERWOOD BUILDING SOC MORTGAGE','Calderwood Building Soc Mortgage','housing',1,'heldout6-seed','bc5a9d82185bd97094c8c87cbc1ca61b8a2237c8b8b53dfa2a357a3b318518ee',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(13,1,'2026-12-01',-142500,'GBP','CALDERWOOD BUILDING SOC MORTGAGE','Calderwood Building Soc Mortgage','housing',1,'heldout6-seed','9c3953e2212241915deb4decf91392fa8807dd96153960686f8642ce641b11ce',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(14,1,'2026-06-06',-11980,'GBP','NORTHGRID ENERGY DD','Northgrid Energy Dd','utilities',5,'heldout6-seed','1fc62c9f2d0cf0760145c1b26c7a6f6904de467938b717f05249dfed7e3bc7c0',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(15,1,'2026-07-06',-12108,'GBP','NORTHGRID ENERGY DD','Northgrid Energy Dd','utilities',5,'heldout6-seed','e1b292eb435f2704cbc74f676bf29bbbf915b7d2210ff2be1367199cad0ee254',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(16,1,'2026-08-06',-12220,'GBP','NORTHGRID ENERGY DD','Northgrid Energy Dd','utilities',5,'heldout6-seed','5294d1b73439cf1907e84f44d5333f8dffe6621568e9ad5968f9d6e054bd9e5d',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(17,1,'2026-09-06',-11683,'GBP','NORTHGRID ENERGY DD','Northgrid Energy Dd','utilities',5,'heldout6-seed','11fe9e1e4b62e5b1f06e16c933a388bf396005e15500ed754d9b29041b5f9ecd',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(18,1,'2026-10-06',-11947,'GBP','NORTHGRID ENERGY DD','Northgrid Energy Dd','utilities',5,'heldout6-seed','dd8eebdaaea6728836d37719f12ebdc86e2fa2678f09bce087e114aaae98d6dc',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(19,1,'2026-11-06',-11750,'GBP','NORTHGRID ENERGY DD','Northgrid Energy Dd','utilities',5,'heldout6-seed','b4c1e6dfb53675482d06b4131a5342781c73078cbbb4185a4dbea94e551b4914',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(20,1,'2026-06-15',-18900,'GBP','EDINBRIDGE COUNCIL TAX','Edinbridge Council Tax','taxes',2,'heldout6-seed','e92df54bc04b37a7d3010fc2a108dcd173e51bd4f2a556f3a3bdbd98ead1ba1c',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(21,1,'2026-07-15',-18900,'GBP','EDINBRIDGE COUNCIL TAX','Edinbridge Council Tax','taxes',2,'heldout6-seed','617d33f70aa23032ba817f7639c077f760fbf757f194eccc73f665045fc11703',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(22,1,'2026-08-15',-18900,'GBP','EDINBRIDGE COUNCIL TAX','Edinbridge Council Tax','taxes',2,'heldout6-seed','c3fb6db6db0553a55459542eb6024a0c4814f0102822011537edea6697e31fad',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(23,1,'2026-09-15',-18900,'GBP','EDINBRIDGE COUNCIL TAX','Edinbridge Council Tax','taxes',2,'heldout6-seed','f2e933db38312b6ad2e652b67defe637050be55228b75de564264e864ebfd1d1',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(24,1,'2026-10-15',-18900,'GBP','EDINBRIDGE COUNCIL TAX','Edinbridge Council Tax','taxes',2,'heldout6-seed','debfcfa479aae89ad20b2c003ee3e57c60935a19927b470da691360d755fb120',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(25,1,'2026-11-15',-18900,'GBP','EDINBRIDGE COUNCIL TAX','Edinbridge Council Tax','taxes',2,'heldout6-seed','97287cfd93c421b1ad332aade34867e8c27b9f556f8cf71ad4376920843453bc',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(26,1,'2026-06-09',-3200,'GBP','FIBRELINK BROADBAND','Fibrelink Broadband','utilities',3,'heldout6-seed','600eeadf09f1ff53d5e9bb8c131d2197930af1942681878e0dac7b1854304918',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(27,1,'2026-07-09',-3200,'GBP','FIBRELINK BROADBAND','Fibrelink Broadband','utilities',3,'heldout6-seed','4a04170f252382f6851a3a69d2034a43afc5535eb5a1bb5c0c8905df0ca7886b',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(28,1,'2026-08-09',-3200,'GBP','FIBRELINK BROADBAND','Fibrelink Broadband','utilities',3,'heldout6-seed','f2464ca050fe325ad044df5b97626183d547dfb06db1e890004eeebf6b5c3add',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(29,1,'2026-09-09',-3200,'GBP','FIBRELINK BROADBAND','Fibrelink Broadband','utilities',3,'heldout6-seed','c68df000fff2813e31656ee8ed9d5f8d1c018229b1bbc8d75cb465efdbe257ee',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(30,1,'2026-10-09',-3200,'GBP','FIBRELINK BROADBAND','Fibrelink Broadband','utilities',3,'heldout6-seed','8f7ee7d2b44453ea191dcbb8f46cdbbf4f40380f1d79418691ea25e6386495f0',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(31,1,'2026-11-09',-3200,'GBP','FIBRELINK BROADBAND','Fibrelink Broadband','utilities',3,'heldout6-seed','0871a543ba163e109f1964f6c7fb1cd540bb19ccab8ae9df17901abc42e0f163',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(32,1,'2026-06-20',-6450,'GBP','HEARTH MUTUAL INSURANCE','Hearth Mutual Insurance','insurance',4,'heldout6-seed','619c6a7b26099166f7811440cfaf7047ced51bf16c763e581c81b6844ad85af1',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(33,1,'2026-07-20',-6450,'GBP','HEARTH MUTUAL INSURANCE','Hearth Mutual Insurance','insurance',4,'heldout6-seed','599eaa58f55c90f55f71ef5b1fdb6ceb19a02982cf94b06d4f7637a6d2a936b9',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(34,1,'2026-08-20',-6450,'GBP','HEARTH MUTUAL INSURANCE','Hearth Mutual Insurance','insurance',4,'heldout6-seed','7f65b8be720cbf236fa5bbda90a5c59c7bf82f87dc1e9e256d9d802a0bb4f60a',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(35,1,'2026-09-20',-6450,'GBP','HEARTH MUTUAL INSURANCE','Hearth Mutual Insurance','insurance',4,'heldout6-seed','2aa56156b5264bc0f1e33f7a8d6ce601c1274207284e40cf30d7eb827d26166f',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(36,1,'2026-10-20',-6450,'GBP','HEARTH MUTUAL INSURANCE','Hearth Mutual Insurance','insurance',4,'heldout6-seed','4ec65025dce6ac3a512696a18f16186a233eddf9febcd84c8fb776235fe71522',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(37,1,'2026-11-20',-6450,'GBP','HEARTH MUTUAL INSURANCE','Hearth Mutual Insurance','insurance',4,'heldout6-seed','9a73f08da81d2b156f1316ede161bd1418c89943a3ad910e3e36cc9317c8ca50',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(38,1,'2026-06-03',-4200,'GBP','QUAYSIDE LEISURE GYM','Quayside Leisure Gym','fitness',6,'heldout6-seed','2d67e055d3ed17deb5887e1fbdbd846b47b4e2caac826bbf8be236cda9942217',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(39,1,'2026-07-03',-4200,'GBP','QUAYSIDE LEISURE GYM','Quayside Leisure Gym','fitness',6,'heldout6-seed','e94e8a81ac59b9d8f275da32e12f64b2c0683b1f2ce8f1fcf8d68d66ab808ceb',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(40,1,'2026-08-03',-4200,'GBP','QUAYSIDE LEISURE GYM','Quayside Leisure Gym','fitness',6,'heldout6-seed','f1c9b4c70156b5982092fa4531453dd8a08eedd864feb0c051942d3788de0cdb',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(41,1,'2026-09-03',-4200,'GBP','QUAYSIDE LEISURE GYM','Quayside Leisure Gym','fitness',6,'heldout6-seed','cd644fb3da18922174ce03e58947db9991c6bff102bb13b4bc1513b6b61e9277',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(42,1,'2026-10-03',-4200,'GBP','QUAYSIDE LEISURE GYM','Quayside Leisure Gym','fitness',6,'heldout6-seed','2106cb67d7ba64c32648ca4fda234fbd27bd5be671d9d2354b64fc55d706fd61',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(43,1,'2026-11-03',-4200,'GBP','QUAYSIDE LEISURE GYM','Quayside Leisure Gym','fitness',6,'heldout6-seed','46eb270557c2297bf9a8d571e0504589fd6120ce1ee557b040c7adcea3cc4407',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(44,1,'2026-12-03',-4200,'GBP','QUAYSIDE LEISURE GYM','Quayside Leisure Gym','fitness',6,'heldout6-seed','8935c9dfc8e08e61d229ac50551cd8a1c909a99dcdb29184db2de8441cc21164',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(45,1,'2026-06-24',-57462,'GBP','PAYMENT TO HARBOUR CARD','Payment To Harbour Card','transfers',NULL,'heldout6-seed','e248b7aa924fdf12da2c4f00dc0b58af349643c37e7adf1283890d61baa20177',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(46,1,'2026-07-24',-84456,'GBP','PAYMENT TO HARBOUR CARD','Payment To Harbour Card','transfers',NULL,'heldout6-seed','c87276c37174efedb3166a547cab1088541e1823322a056a661efabaacb61da8',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(47,1,'2026-08-24',-89954,'GBP','PAYMENT TO HARBOUR CARD','Payment To Harbour Card','transfers',NULL,'heldout6-seed','11b16b5f5e333636b23739d8884c1eadc517ff38b31196cb30f443efbcf1e8ba',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(48,1,'2026-09-24',-85854,'GBP','PAYMENT TO HARBOUR CARD','Payment To Harbour Card','transfers',NULL,'heldout6-seed','27194d19c8d318a73f83ee4dccc90fae9922e52b9204ee80af367a7cfdbca908',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(49,1,'2026-10-24',-95045,'GBP','PAYMENT TO HARBOUR CARD','Payment To Harbour Card','transfers',NULL,'heldout6-seed','b8f5733331bcfed6d52a273fd44b0c56d6c57b652dcedb486cc048c581363010',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(50,1,'2026-11-24',-63651,'GBP','PAYMENT TO HARBOUR CARD','Payment To Harbour Card','transfers',NULL,'heldout6-seed','4bfc33be706f722578f33c8bc8d8489b9d8fbef556a1842d97f7b55aa7972469',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(51,2,'2026-06-24',57462,'GBP','PAYMENT RECEIVED THANK YOU','Payment Received Thank You','transfers',NULL,'heldout6-seed','018007b2ac58152199cf42f0a80525bc7b7f6cab34ca5de47b54b6f94cbae2d0',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(52,2,'2026-07-24',84456,'GBP','PAYMENT RECEIVED THANK YOU','Payment Received Thank You','transfers',NULL,'heldout6-seed','df40deb8b64eaba8aeca68ec9bb814332dbc6d9ed8ab552c11b358b20b3288d9',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(53,2,'2026-08-24',89954,'GBP','PAYMENT RECEIVED THANK YOU','Payment Received Thank You','transfers',NULL,'heldout6-seed','97719a4fb961cca2508573195b0d31243aec633bf72a7d193ef81a6988159b49',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(54,2,'2026-09-24',85854,'GBP','PAYMENT RECEIVED THANK YOU','Payment Received Thank You','transfers',NULL,'heldout6-seed','9283214ef4066945240040588f5c8c8d92d4ba4ef06fd74e3df488299f28d87d',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(55,2,'2026-10-24',95045,'GBP','PAYMENT RECEIVED THANK YOU','Payment Received Thank You','transfers',NULL,'heldout6-seed','dca75f4031b3815065c3b1366b348373d87ee88c0dd13bc3ab7e3d52570326be',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(56,2,'2026-11-24',63651,'GBP','PAYMENT RECEIVED THANK YOU','Payment Received Thank You','transfers',NULL,'heldout6-seed','7fa3bb2158598cea86dd92ae95222c5017410d2629778d7c318ba9c0ecc374eb',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(57,2,'2026-06-11',-1099,'GBP','STREAMLY SUBSCRIPTION','Streamly Subscription','subscriptions',8,'heldout6-seed','a78cc9f92657f3095d931badda1f809bbe05412b73b72723f3204e8ee183b7e3',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(58,2,'2026-07-11',-1099,'GBP','STREAMLY SUBSCRIPTION','Streamly Subscription','subscriptions',8,'heldout6-seed','5f5b8125b6a5f3e71a524c0d2b1311875ce1ebfbb38042d72fc09b0a3734f2a2',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(59,2,'2026-08-11',-1099,'GBP','STREAMLY SUBSCRIPTION','Streamly Subscription','subscriptions',8,'heldout6-seed','405fd74593ac2aa83a3e9137d1fb5a47ee3f53544e58118938d87cd93a3dc468',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(60,2,'2026-09-11',-1099,'GBP','STREAMLY SUBSCRIPTION','Streamly Subscription','subscriptions',8,'heldout6-seed','41bafe070e6c9d22b6149981e71f566645871a4f4486829f689bcc425679ca78',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(61,2,'2026-10-11',-1099,'GBP','STREAMLY SUBSCRIPTION','Streamly Subscription','subscriptions',8,'heldout6-seed','bc58f950fa3daa8130b22078213fece0d8b854d98596d2c17a8da42f43bfecd4',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(62,2,'2026-11-11',-1099,'GBP','STREAMLY SUBSCRIPTION','Streamly Subscription','subscriptions',8,'heldout6-seed','fb6e7bfa44075c9a53cfc5e721740ff21bf8f1891dc40382eca9a12371a9c962',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(63,2,'2026-06-18',-799,'GBP','PODSHELF AUDIOBOOKS','Podshelf Audiobooks','subscriptions',7,'heldout6-seed','5adc69c443bcaf6115cf3210ea941e7ad21eab206d3b012b503cc6702d58aa7e',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(64,2,'2026-07-18',-799,'GBP','PODSHELF AUDIOBOOKS','Podshelf Audiobooks','subscriptions',7,'heldout6-seed','0b7edcc33e834c9df4740f9edfb7214c63bdad5ca68dd31c0c9d2877335d63da',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(65,2,'2026-08-18',-799,'GBP','PODSHELF AUDIOBOOKS','Podshelf Audiobooks','subscriptions',7,'heldout6-seed','ea26d94954773201f3929d4556bbf08f1bc570f022483b26dd199b7bae46367d',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(66,2,'2026-09-18',-799,'GBP','PODSHELF AUDIOBOOKS','Podshelf Audiobooks','subscriptions',7,'heldout6-seed','64388598e742981183e21050f2332bd5782f79614949ad231ae3385480ebc627',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(67,2,'2026-10-18',-799,'GBP','PODSHELF AUDIOBOOKS','Podshelf Audiobooks','subscriptions',7,'heldout6-seed','ec2eab9574c01042090d250a2c1c0dbffa2c471841e0d1c8d7a606a5b10b4d2a',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(68,2,'2026-11-18',-799,'GBP','PODSHELF AUDIOBOOKS','Podshelf Audiobooks','subscriptions',7,'heldout6-seed','5d520da497509a078cfa328dc8a219371932c2de7ee8a75a31093d03a0f496da',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(69,2,'2026-06-04',-7028,'GBP','GREENWAYS SUPERMARKET','Greenways Supermarket','groceries',NULL,'heldout6-seed','ff7a305c13b5ec1b014c6595cec9ce1f5c3088fb669dbf61bf2ea67232ff1f14',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(70,2,'2026-06-11',-11012,'GBP','GREENWAYS SUPERMARKET','Greenways Supermarket','groceries',NULL,'heldout6-seed','063771f4a1366478dd7efbad81131143805f6e8241e9e4687848d8bb44c2ced8',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(71,2,'2026-06-18',-11857,'GBP','GREENWAYS SUPERMARKET','Greenways Supermarket','groceries',NULL,'heldout6-seed','181724479ff23ab31d56ae0e00029943f00a73f923624a3b2d9e52eea2b4f4e3',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(72,2,'2026-06-25',-7011,'GBP','GREENWAYS SUPERMARKET','Greenways Supermarket','groceries',NULL,'heldout6-seed','a9622d8f322008865033b58a40808eebf33a10254bca09057abc85e4ec9c5ae2',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(73,2,'2026-07-02',-6701,'GBP','GREENWAYS SUPERMARKET','Greenways Supermarket','groceries',NULL,'heldout6-seed','33ea89535da13ae5448822f616ae5168019db29d7cb756a7d9b428f674aefa76',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(74,2,'2026-07-09',-7702,'GBP','GREENWAYS SUPERMARKET','Greenways Supermarket','groceries',NULL,'heldout6-seed','8088a31f14bc4747ca3b010788b8ac49dde6a704332fecbcebad651d51c75597',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(75,2,'2026-07-16',-9591,'GBP','GREENWAYS SUPERMARKET','Greenways Supermarket','groceries',NULL,'heldout6-seed','5fd180f76953fe39b927c217fd72a83e3376330023eda9a96061e1e5b3ca4734',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(76,2,'2026-07-23',-10825,'GBP','GREENWAYS SUPERMARKET','Greenways Supermarket','groceries',NULL,'heldout6-seed','615b3b4810c84e5661d3bfcb0f71f58471f9f56a7d7b480bc21bd3cedbe17a3d',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(77,2,'2026-07-30',-7006,'GBP','GREENWAYS SUPERMARKET','Greenways Supermarket','groceries',NULL,'heldout6-seed','b2ce3b3ce18c4d7e87c5da65b4d32c5a39b3a127d06a623fcf6e1e8afa69244f',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(78,2,'2026-08-06',-11888,'GBP','GREENWAYS SUPERMARKET','Greenways Supermarket','groceries',NULL,'heldout6-seed','adee7419c1c22209f5af8e11aa421d53e2707b43805dae2f0c3e459ed7e98ee2',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(79,2,'2026-08-13',-8774,'GBP','GREENWAYS SUPERMARKET','Greenways Supermarket','groceries',NULL,'heldout6-seed','be1ef0d8a7812cba3d338c6157c0478b328553f2fbdf0e928da18efa75af482d',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(80,2,'2026-08-20',-11102,'GBP','GREENWAYS SUPERMARKET','Greenways Supermarket','groceries',NULL,'heldout6-seed','72b1bcb8a6428893f77b988bb4f83809e2ee5e82406102adf1faf9f44fb8c211',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(81,2,'2026-08-27',-12984,'GBP','GREENWAYS SUPERMARKET','Greenways Supermarket','groceries',NULL,'heldout6-seed','a2d220c1727c364fababf842cbda306999b36a7ee6460a99044ba13108c3f267',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(82,2,'2026-09-03',-9098,'GBP','GREENWAYS SUPERMARKET','Greenways Supermarket','groceries',NULL,'heldout6-seed','0b00d77f0d054e573a9956c4fc223501045170307d85524a1d34d27652847c58',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(83,2,'2026-09-10',-11027,'GBP','GREENWAYS SUPERMARKET','Greenways Supermarket','groceries',NULL,'heldout6-seed','2388e71a62cba77b6875dde7ac635d7f9d9a6b41fb21ea3629bf3f09dcba95a8',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(84,2,'2026-09-17',-7631,'GBP','GREENWAYS SUPERMARKET','Greenways Supermarket','groceries',NULL,'heldout6-seed','4802439c22ee81970248a3a53cb934cdf4afe59629a33b549bf74c02e9714bf6',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(85,2,'2026-09-24',-7958,'GBP','GREENWAYS SUPERMARKET','Greenways Supermarket','groceries',NULL,'heldout6-seed','8b2528792451ed3e28767da7ea7cc54b1561864523309391b13a90b9e1578fb2',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(86,2,'2026-10-01',-11195,'GBP','GREENWAYS SUPERMARKET','Greenways Supermarket','groceries',NULL,'heldout6-seed','8093383987b92c736102462171c9849db9f9c49cc65cdf8e3cfd1c19b5da82e4',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(87,2,'2026-10-08',-7312,'GBP','GREENWAYS SUPERMARKET','Greenways Supermarket','groceries',NULL,'heldout6-seed','3d6ff95139ae14f9a539654c11c207061e82d5165d06b2148c3fbaaa18851522',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(88,2,'2026-10-15',-6823,'GBP','GREENWAYS SUPERMARKET','Greenways Supermarket','groceries',NULL,'heldout6-seed','162cb0b69dfd13bda0af19491e518479e8d1d89b6a0f116eee0fd1fe48185a56',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(89,2,'2026-10-22',-9149,'GBP','GREENWAYS SUPERMARKET','Greenways Supermarket','groceries',NULL,'heldout6-seed','84334f3e1a5296797c9b81d7ace5f3547b499acef26ef36edd43b0a8e143edf9',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(90,2,'2026-10-29',-7350,'GBP','GREENWAYS SUPERMARKET','Greenways Supermarket','groceries',NULL,'heldout6-seed','1cad74a45d195fa72f3961d293a3315fdc35e286c7e29d911e24e01068737a50',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(91,2,'2026-11-05',-11409,'GBP','GREENWAYS SUPERMARKET','Greenways Supermarket','groceries',NULL,'heldout6-seed','4f2aebdee495d7ab7e3c95ffa8edca0ade4132b2e83992eb25c7c8d57c58b7ef',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(92,2,'2026-11-12',-10444,'GBP','GREENWAYS SUPERMARKET','Greenways Supermarket','groceries',NULL,'heldout6-seed','79112c51d654818592a05275b6019a90e3e9f13c2d28f1b31fe0f0a6797b30c2',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(93,2,'2026-11-19',-13748,'GBP','GREENWAYS SUPERMARKET','Greenways Supermarket','groceries',NULL,'heldout6-seed','a03f06746af5dfe9128fcc82d40a45ccb9b6e043e23288fe85393e4839a27584',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(94,2,'2026-11-26',-7660,'GBP','GREENWAYS SUPERMARKET','Greenways Supermarket','groceries',NULL,'heldout6-seed','a2955085ed267d3ebdc750df83d4599ec13f9d83ea3017a96108cb5b23b66291',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(95,2,'2026-12-03',-11963,'GBP','GREENWAYS SUPERMARKET','Greenways Supermarket','groceries',NULL,'heldout6-seed','af1efb00ba16d8b810ea0017bec5650d3392f9794d3079fe926d7718ae3ba473',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(96,2,'2026-06-02',-455,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','933887cddfcde9d7002ed467bb5ce8306f5a0f6cc7f9c178554be21f1112e5a4',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(97,2,'2026-06-07',-320,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','b9278b45d3077b34c1e1338c4f25d3239de1a56503d65dc8ae8bb47409fadbd9',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(98,2,'2026-06-12',-345,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','1a271a57859ff1c4ac1d6171218b32b28856e7a51ad89e7b240f7f16cfae3b55',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(99,2,'2026-06-17',-345,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','e6d3a1865a9998c3dfc4bcfa0fb8b646a96dfc4a76f5a8dda1043a5e64505f96',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(100,2,'2026-06-22',-410,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','69c8e0cf0043bada268de0613cfacbc532918e7ed4861ba072a27dcc63718c5c',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(101,2,'2026-06-27',-320,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','fb169f905a0253d5e5b80c22f30c1f67ddeaea20d626038ed31fec195e904420',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(102,2,'2026-07-02',-455,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','7d3ca53295030e9c5b2067938bdfb50e62e738c12b52b7a45c592a148e421767',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(103,2,'2026-07-07',-455,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','5e413a75e52c6dbfbb6c29878ff90b851ce1e1c1bf5bb459ecb4be04eac8f3ed',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(104,2,'2026-07-12',-320,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','eea47b2fee0a681fe1e74564034a3bd9314d7407fc863a414b0f683311a61efa',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(105,2,'2026-07-17',-345,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','f3149db7a07c39d170b7be4d763cdab87da25008155507f12c1360f4ea7c35c5',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(106,2,'2026-07-22',-455,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','f83eaf82e9eb2be9c8dfbaeb91a46782c01eec0c4b95093e8782b9a764eb309e',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(107,2,'2026-07-27',-455,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','0b62399f2ad7ea2744b6579a82341962ba6744280add91c37c58f3cb51db9c8f',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(108,2,'2026-08-01',-410,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','01a8c1ae3349ac388ed25de0361b8597f14063a9ce82014a255365e7065578ab',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(109,2,'2026-08-06',-455,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','a7409b1326a299dc98ad18b866e078559758f056edc84a0bc287514adcbe2a09',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(110,2,'2026-08-11',-455,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','63072475eee823969db4822d0f2f4347863ad6c6d4669f2004c6ffa27da13a7e',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(111,2,'2026-08-16',-320,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','c36033e242f295e7043fee9e668381411bcd6bb4385f63cab0b858c429c74cc9',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(112,2,'2026-08-21',-410,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','d849ac4b945472edd0ecaee52acc42f99ad8cfbafc2d50d3a1f108907b6185e6',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(113,2,'2026-08-26',-320,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','36fd1d8fe68589f82e1fc938ecf1fb3b88eeaf024880de9154204cab2656b95b',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(114,2,'2026-08-31',-410,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','e351da87646f23217f33cd8a28efa7c36a458d8116a8fac459eb11034c0abe36',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(115,2,'2026-09-05',-410,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','79c4e2e18e5ba45fd8c2ba2e9b509b4cb07e85879b88f381b4056c0ec7344df0',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(116,2,'2026-09-10',-455,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','19d33f075121bf5e658a1eb4fca26a6b1101bd39473033ffe18dbd4458627c59',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(117,2,'2026-09-15',-345,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','e80b5321bc9b40f0c75b4deda82d31b59938723bc27bdba9e88a5b53afde655e',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(118,2,'2026-09-20',-410,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','c44f5ed8b841ae57acbbd09c60dddefb8b510539b4c9809f2f6297e329c08372',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(119,2,'2026-09-25',-455,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','0753c84fefc4193a1f35bdb7d6d6db102e310403ee4b29d85e2818438bbd73bd',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(120,2,'2026-09-30',-410,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','e428de117754fc2f38d0918a37b106585efe515b2469e013c67c1753e277af1c',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(121,2,'2026-10-05',-455,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','c783db6ac89c8ed25556b4653b773045c18be2acfe1e5893b8593a308f4a9a64',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(122,2,'2026-10-10',-455,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','0ed4f66da1c1e4992f48e8446184b79fd37af6f4e5ba146ec516b833aad3e26e',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(123,2,'2026-10-15',-455,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','ca5d21d8bd7d62b9f3d0e87ccfb5b3c3a6899241f84cff6611ef1b59b321856e',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(124,2,'2026-10-20',-455,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','225256ddbdbfdbf2cbcd3f2e1e94926770eee2e7e6b3368e67ea8a19cf2c45a4',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(125,2,'2026-10-25',-320,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','36f96ecb10bc4bf284e1d6f13211d9af468f89275eb934417cc65a19cfd0df3e',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(126,2,'2026-10-30',-410,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','fa00dd10431fd889f032fc675b17db409356edc23bf134389d087e6d3e41da75',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(127,2,'2026-11-04',-455,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','fa2c113eafe2b437add0e3bf06f4a96fe6286fcf957960533166a76e93c48e88',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(128,2,'2026-11-09',-345,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','69e5500630547ff58ef30d99152725dbc75dd6a938c6c3293438d30bf0010379',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(129,2,'2026-11-14',-345,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','ae855916b95b3f6b8cd0bc9299b99f55cf0f329dc46e53e08b3656f3c818998f',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(130,2,'2026-11-19',-345,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','4deb9e499e8e3f3df61ccc5d4dfe1e3ea4f406af9517822e8b49e289d111a12e',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(131,2,'2026-11-24',-320,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','321a6433c8d7cc1cfb6e48392dc64dd121ef2e6a6a5e77b07d7edfb4f6f8ce66',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(132,2,'2026-11-29',-455,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','90438cdc4a884b3886b01c2627398ffa60cc2479fdc2a33507639c41114d1f6e',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(133,2,'2026-12-04',-320,'GBP','HARBOURSIDE COFFEE','Harbourside Coffee','dining',NULL,'heldout6-seed','39bf918cc16c3724acac8dfc558d272c03bcff1fb128a26d9b5b62c9274452e0',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(134,2,'2026-06-09',-3724,'GBP','LANTERN NOODLE BAR','Lantern Noodle Bar','dining',NULL,'heldout6-seed','dbd6a4f13af8652c5ab1ab50645d758affc1a2a896d7c8ceb6655bad8a411d92',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(135,2,'2026-06-22',-2758,'GBP','LANTERN NOODLE BAR','Lantern Noodle Bar','dining',NULL,'heldout6-seed','62ec47ddd2057bf479d940a5b4a72d2bd92a04e30096ba34ccfa28fedcde7936',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(136,2,'2026-07-05',-3268,'GBP','LANTERN NOODLE BAR','Lantern Noodle Bar','dining',NULL,'heldout6-seed','517a0c063f6b760999efd1da2c6bdf8934911ccc25adf08c3e1abdb5c204f00c',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(137,2,'2026-07-18',-4485,'GBP','LANTERN NOODLE BAR','Lantern Noodle Bar','dining',NULL,'heldout6-seed','563bd9a2f2a74f154b56044f9f1164be56742df0a4f338cf1a836c8fd619be82',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(138,2,'2026-07-31',-4456,'GBP','LANTERN NOODLE BAR','Lantern Noodle Bar','dining',NULL,'heldout6-seed','65d7761d531b8efa68cf91dbc96b4a8def12d528d3bb18018b528a9dc3c3db9c',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(139,2,'2026-08-13',-3268,'GBP','LANTERN NOODLE BAR','Lantern Noodle Bar','dining',NULL,'heldout6-seed','c52d86801751edabf4ed6931a74aedc9f3bb2211680ef7aa98c53dfc54a68915',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(140,2,'2026-08-26',-3347,'GBP','LANTERN NOODLE BAR','Lantern Noodle Bar','dining',NULL,'heldout6-seed','034a21a8ef109bbc9ada16faf81b272b7233f2217ca2d0512da6106bd5de23fb',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(141,2,'2026-09-08',-4295,'GBP','LANTERN NOODLE BAR','Lantern Noodle Bar','dining',NULL,'heldout6-seed','9376b4ba27285fa156422bfe39532428a897d8f9e6da8981ff6f1f24421f9c3c',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(142,2,'2026-09-21',-3813,'GBP','LANTERN NOODLE BAR','Lantern Noodle Bar','dining',NULL,'heldout6-seed','939a35cddc7881109a37961a5e6a165eba98b29ba2097a61b4863466f63c1bbc',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(143,2,'2026-10-04',-4398,'GBP','LANTERN NOODLE BAR','Lantern Noodle Bar','dining',NULL,'heldout6-seed','082077d4c815c39fc3b1d30b86d9192a71f41391a1e6ed4538cc3d1e94167a18',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(144,2,'2026-10-17',-3580,'GBP','LANTERN NOODLE BAR','Lantern Noodle Bar','dining',NULL,'heldout6-seed','0c0c64105f29de32bc228deb9ead6ba2f981ef38136ca0361fcacd225f080dfa',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(145,2,'2026-10-30',-3796,'GBP','LANTERN NOODLE BAR','Lantern Noodle Bar','dining',NULL,'heldout6-seed','fd6873e6628d7345cd247c7a49e6e20dfae12292646b95e395162f4cc0a8970d',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(146,2,'2026-11-12',-4446,'GBP','LANTERN NOODLE BAR','Lantern Noodle Bar','dining',NULL,'heldout6-seed','2b064351fb158aa5f0200f9533af49489288bd0048ee3459a77afaf55f2523d4',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(147,2,'2026-11-25',-3550,'GBP','LANTERN NOODLE BAR','Lantern Noodle Bar','dining',NULL,'heldout6-seed','027fe864f8159adc0c4dddc04228a8e0135bd6ddfde067da5a3010a706b6737a',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(148,2,'2026-06-12',-2888,'GBP','TIDEWATER FERRIES','Tidewater Ferries','travel',NULL,'heldout6-seed','87d023b1c30c832c9ed734be7ad95abe3b1110dd0e63f96191d38c0310ecd0a3',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(149,2,'2026-07-03',-2209,'GBP','TIDEWATER FERRIES','Tidewater Ferries','travel',NULL,'heldout6-seed','58610d6e95271eddd21873f93cd1fbd35a07e93a7a865dcab6f2eb53fead28ee',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(150,2,'2026-07-24',-2836,'GBP','TIDEWATER FERRIES','Tidewater Ferries','travel',NULL,'heldout6-seed','d0c6801dcdf36d8c4d3895efa4ada6a3395c77d13079cf0042f2f04294f9d24e',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(151,2,'2026-08-14',-3593,'GBP','TIDEWATER FERRIES','Tidewater Ferries','travel',NULL,'heldout6-seed','ea4cc285926c1fc0925944b4c8038a725d72e2a5fbc1f652a9fb6acb23b88d5d',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(152,2,'2026-09-04',-1872,'GBP','TIDEWATER FERRIES','Tidewater Ferries','travel',NULL,'heldout6-seed','84daa0ee48c60f5b224fe4ee5a10bf8f1ee6577a4e29cad93eca3a398c520f51',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(153,2,'2026-09-25',-2533,'GBP','TIDEWATER FERRIES','Tidewater Ferries','travel',NULL,'heldout6-seed','521a2b286a75ce02d0a29c7236928b9e5a8864a947d4e597f4bd9db839df2b01',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(154,2,'2026-10-16',-2639,'GBP','TIDEWATER FERRIES','Tidewater Ferries','travel',NULL,'heldout6-seed','e1a09f1b88490333ea9fa18a3f04bac43ce951d1d3878670938fd7825666e28e',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(155,2,'2026-11-06',-3472,'GBP','TIDEWATER FERRIES','Tidewater Ferries','travel',NULL,'heldout6-seed','a1ac14db4175e993c51780d2df60cbe205a8087e51e2e8b9f522b4f68c6cff3a',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(156,2,'2026-11-27',-2567,'GBP','TIDEWATER FERRIES','Tidewater Ferries','travel',NULL,'heldout6-seed','b11bb6c2c3becffdf693703ebb8092b1d5fe975d7684a84caffb6e35c0366e36',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(157,2,'2026-06-16',-6442,'GBP','PETROCO FUEL CARRICK','Petroco Fuel Carrick','transport',NULL,'heldout6-seed','3354fd77077728cbb53596bb7cf306754d6f97edcd253bf1e7cf3d89e871b367',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(158,2,'2026-07-16',-6974,'GBP','PETROCO FUEL CARRICK','Petroco Fuel Carrick','transport',NULL,'heldout6-seed','c535665fb2d620938ce2e3bc5e7b8edda02a3a138662ed43218b5362c05f3132',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(159,2,'2026-08-15',-6842,'GBP','PETROCO FUEL CARRICK','Petroco Fuel Carrick','transport',NULL,'heldout6-seed','af91aba73fc7c5017e4c28afa7048272fd6d33964563e648f6fd21dd6f558f2e',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(160,2,'2026-09-14',-5038,'GBP','PETROCO FUEL CARRICK','Petroco Fuel Carrick','transport',NULL,'heldout6-seed','51cb4f0df6da33d7baccfb1603149699261412d19789aa8c9c1813bac7ad96e0',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(161,2,'2026-10-14',-5433,'GBP','PETROCO FUEL CARRICK','Petroco Fuel Carrick','transport',NULL,'heldout6-seed','bcadaf0f8d850c1e831f0de565f0bb571a26e6d72d8720f9b891a2c72ad09e50',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(162,2,'2026-11-13',-5575,'GBP','PETROCO FUEL CARRICK','Petroco Fuel Carrick','transport',NULL,'heldout6-seed','eb85abb71b31cbe69979dc4e584ea05b3786cb0e835f4168b3ce038b595533fb',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(163,2,'2026-07-19',-24900,'GBP','SKYWAY AIR','Skyway Air','travel',NULL,'heldout6-seed','8d492a903e84e6ead3efd6e46901798650150bd642d24091f9b236f5120c740c',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(164,2,'2026-08-30',-8650,'GBP','KELPIE OUTDOOR','Kelpie Outdoor',NULL,NULL,'heldout6-seed','70b312ef9eeee946e3df4448922476946e0c6ee9bf3f9960feda0eaeba717884',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(165,2,'2026-10-04',-15999,'GBP','BRIGHTWIRE ELECTRONICS','Brightwire Electronics',NULL,NULL,'heldout6-seed','55495d6e6c40bc964123046a30324f833f381b2154b020495988180b0be1bd59',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(166,2,'2026-11-22',-4280,'GBP','MARISOL HOME','Marisol Home',NULL,NULL,'heldout6-seed','a608fb9c9d2db5df0bd569871b87570bb46bd08dd80d4f1f8caf944e95c78199',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(167,3,'2026-06-19',120356,'GBP','INVOICE PAYMENT KESTREL PRESS','Invoice Payment Kestrel Press','income',NULL,'heldout6-seed','02aa10bc987ac999ee19a32f455512a325eda895990aadf2d3c02960177c829a',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(168,3,'2026-07-23',129193,'GBP','INVOICE PAYMENT KESTREL PRESS','Invoice Payment Kestrel Press','income',NULL,'heldout6-seed','4b758de0fb344f7225f248c2135032ec973b46b8bd61d0c1c64203ca5899c4e2',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(169,3,'2026-09-08',204102,'GBP','INVOICE PAYMENT KESTREL PRESS','Invoice Payment Kestrel Press','income',NULL,'heldout6-seed','b4cf16d04520feee8beee05fe41c36d47bc6d5752d5e794724cc5588ae8a0e50',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(170,3,'2026-10-20',199212,'GBP','INVOICE PAYMENT KESTREL PRESS','Invoice Payment Kestrel Press','income',NULL,'heldout6-seed','f2dc7f173e26b179033bd9fe498c97204431f66028863e288522ea6879ab7e3a',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(171,3,'2026-11-26',204414,'GBP','INVOICE PAYMENT KESTREL PRESS','Invoice Payment Kestrel Press','income',NULL,'heldout6-seed','ed40c71cd257a76387c01b8aeda4be898286a7786ed1c9650d59e37f17c0b4ee',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(172,3,'2026-06-02',-2400,'GBP','VECTORLY PRO PLAN','Vectorly Pro Plan','subscriptions',10,'heldout6-seed','5bebf9d51f23bd21cccfd2d5aef45142aeb8574b8149b6e8cc464f214ed40721',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(173,3,'2026-07-02',-2400,'GBP','VECTORLY PRO PLAN','Vectorly Pro Plan','subscriptions',10,'heldout6-seed','49f3c9ffcf4a8b3b7d980e09f5527b15c7bd3f33f0a30b21e520cab77c9334a1',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(174,3,'2026-08-02',-2400,'GBP','VECTORLY PRO PLAN','Vectorly Pro Plan','subscriptions',10,'heldout6-seed','f4c3b519765fb5794d2953ca9c37c5d5c8bd381fcb3fda149e4e25c1edbe62ba',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(175,3,'2026-09-02',-2400,'GBP','VECTORLY PRO PLAN','Vectorly Pro Plan','subscriptions',10,'heldout6-seed','772951d503ca79ebf556d3b4bb68bb6216aa24a9933244c6f3ccabc739a5d51b',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(176,3,'2026-10-02',-2400,'GBP','VECTORLY PRO PLAN','Vectorly Pro Plan','subscriptions',10,'heldout6-seed','2f899311414f3289731ed7544f75fac70bb4c3374baaec22ad6489c62cca45a4',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(177,3,'2026-11-02',-2400,'GBP','VECTORLY PRO PLAN','Vectorly Pro Plan','subscriptions',10,'heldout6-seed','8f339b365b2e59816facb5d0567659e3cb40ca60a8f94efb250f522bf198a213',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(178,3,'2026-12-02',-2400,'GBP','VECTORLY PRO PLAN','Vectorly Pro Plan','subscriptions',10,'heldout6-seed','463c1797ed82a9aebbb9abba9e49c3491a74b5f36f0d87d8af4f87e49dc1eb5d',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(179,3,'2026-06-14',-5500,'GBP','COWORK AT THE ROPEWORKS','Cowork At the Ropeworks','professional',9,'heldout6-seed','028368c51cf0d8b7e0a1489a8296fab9086aaa8bbdaee316f09d00782a5f0d66',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(180,3,'2026-07-14',-5500,'GBP','COWORK AT THE ROPEWORKS','Cowork At the Ropeworks','professional',9,'heldout6-seed','d610aedd59da849f8935ac58b27a2e7866e864f35179d60db2cd77b80bd5d5a2',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(181,3,'2026-08-14',-5500,'GBP','COWORK AT THE ROPEWORKS','Cowork At the Ropeworks','professional',9,'heldout6-seed','a178ecd21593bcab07465716e5bf575165d730a7682910928b0952f57bfc4155',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(182,3,'2026-09-14',-5500,'GBP','COWORK AT THE ROPEWORKS','Cowork At the Ropeworks','professional',9,'heldout6-seed','e58f7b7437f931ddf522eae8843224407815151c964699e43e8d40779ce7561c',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(183,3,'2026-10-14',-5500,'GBP','COWORK AT THE ROPEWORKS','Cowork At the Ropeworks','professional',9,'heldout6-seed','dc478721bdb07bdd2a0bdafe28dac9d8c9aa248c3c7593009dea8afe25845071',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(184,3,'2026-11-14',-5500,'GBP','COWORK AT THE ROPEWORKS','Cowork At the Ropeworks','professional',9,'heldout6-seed','706b53de42a9cab824ff5c6ccd0dd6c49ed7c9564e0ad625ca7579ec858c65a2',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(185,3,'2026-07-31',-96000,'GBP','HMRC VAT','Hmrc Vat','taxes',NULL,'heldout6-seed','31650f0c16bd09439dc007173400b9cdd107b51f50c360ba5dbb98bdd493ddca',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(186,3,'2026-10-31',-96000,'GBP','HMRC VAT','Hmrc Vat','taxes',NULL,'heldout6-seed','f0af8a9607d17f59335e34c6c603d1cb071b29caff7c02b92a75e51ff29ee5c2',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(187,3,'2026-09-17',-189900,'GBP','PIXELFORGE TABLET STORE','Pixelforge Tablet Store',NULL,NULL,'heldout6-seed','60e8bb2df012573ac76670cb78916d1275b65910054bd3c8c0288899eb3e4881',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(188,4,'2026-06-05',-4500,'EUR','COMUNIDAD PROPIETARIOS ALTEA','Comunidad Propietarios Altea','housing',11,'heldout6-seed','9fb52d94789459430c0f3be4786428d06a84026794236d7b5f845de07c9b2733',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(189,4,'2026-07-05',-4500,'EUR','COMUNIDAD PROPIETARIOS ALTEA','Comunidad Propietarios Altea','housing',11,'heldout6-seed','56e1b050d5bedcbbb6e01fb05fd5f1b8c5e20300f8afecd9c36a8416941cf38d',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(190,4,'2026-08-05',-4500,'EUR','COMUNIDAD PROPIETARIOS ALTEA','Comunidad Propietarios Altea','housing',11,'heldout6-seed','02766edfe6d159c1b68aa70627f4240a65afdfab09d02ba22c00c3fa29fe4407',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(191,4,'2026-09-05',-4500,'EUR','COMUNIDAD PROPIETARIOS ALTEA','Comunidad Propietarios Altea','housing',11,'heldout6-seed','b3101eb21e21f37b8bfff7b2516c957cabcccafedd0466957f4c633cf9d00343',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(192,4,'2026-10-05',-4500,'EUR','COMUNIDAD PROPIETARIOS ALTEA','Comunidad Propietarios Altea','housing',11,'heldout6-seed','79cb8d72c58e9559fcaab09f38410a6219f4b3a172621405184017fd3148c319',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(193,4,'2026-11-05',-4500,'EUR','COMUNIDAD PROPIETARIOS ALTEA','Comunidad Propietarios Altea','housing',11,'heldout6-seed','005090c7ca5206d316637bf5082a71f4de8b339e70f57ce1ad01ec99e73708eb',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(194,4,'2026-12-05',-4500,'EUR','COMUNIDAD PROPIETARIOS ALTEA','Comunidad Propietarios Altea','housing',11,'heldout6-seed','ddf6b3b0f4ae7afca55cd4d9ed503352c093515b524b820b1c1b9763c1f43b12',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(195,4,'2026-08-03',-6696,'EUR','MERCADONA ALTEA','Mercadona Altea','groceries',NULL,'heldout6-seed','a9e43a88ded62422b33b60b0e0c27ebad3aa5d9436b46c397415e3cb84c8345e',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(196,4,'2026-08-07',-4538,'EUR','MERCADONA ALTEA','Mercadona Altea','groceries',NULL,'heldout6-seed','6555d3ef018756be182475e2dc45de4613ae6dcd06bf17b89336ba72550ae039',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(197,4,'2026-08-11',-7782,'EUR','MERCADONA ALTEA','Mercadona Altea','groceries',NULL,'heldout6-seed','f8e50be3ae391102b676ec23c0d63f51b5f1a7f70d3421222df0c9439d46fd06',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(198,4,'2026-08-09',-6840,'EUR','RESTAURANTE EL FARO','Restaurante El Faro','dining',NULL,'heldout6-seed','505abcd369ee29178bd5b7473dbb9c78650e60a8de175142c43db64cbe761052',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(199,4,'2026-06-30',250000,'EUR','TRANSFER FROM JOINT CURRENT','Transfer From Joint Current','transfers',NULL,'heldout6-seed','eb43583c14cdb310f730bc6ff6f374807e0b5c09d8a5b52e07b4f72deb5481f9',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(200,4,'2026-09-30',-38200,'EUR','SUMA IBI ALTEA','Suma Ibi Altea',NULL,NULL,'heldout6-seed','3ab44d0efd43596d928fd7843eb6b2483e5964b844bc9d786772425d6bee95bb',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(201,5,'2026-06-01',-412000,'GBP','LINDEN HOUSE CARE HOME','Linden House Care Home','health',12,'heldout6-seed','c9b1d3492e51872b6ae4e6de41dfdf5efb8f87c3d0c9828f542ab2806944624e',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(202,5,'2026-07-01',-412000,'GBP','LINDEN HOUSE CARE HOME','Linden House Care Home','health',12,'heldout6-seed','59ba58f6e5561f328b571416b9464b0a71e9774afcfbbd65b18e61de697f5b6c',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(203,5,'2026-08-01',-412000,'GBP','LINDEN HOUSE CARE HOME','Linden House Care Home','health',12,'heldout6-seed','ff9de624f5ddc119244170e1b88a5b9d231291b891a26dd590d40401e41a54bd',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(204,5,'2026-09-01',-412000,'GBP','LINDEN HOUSE CARE HOME','Linden House Care Home','health',12,'heldout6-seed','124f1547192411dc1f60aed1c119b21e55c2597aebdb2574fd126433c1946bea',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(205,5,'2026-10-01',-412000,'GBP','LINDEN HOUSE CARE HOME','Linden House Care Home','health',12,'heldout6-seed','69f5bf8456b874fec6c0fbd7c8dfa8101fff67ed2772fdf0f76ed980053e0ac8',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(206,5,'2026-11-01',-412000,'GBP','LINDEN HOUSE CARE HOME','Linden House Care Home','health',12,'heldout6-seed','8011d5c41a2f788f516f1ccb6df6826d07d2f83178b6488f563584a9015d49ec',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(207,5,'2026-12-01',-412000,'GBP','LINDEN HOUSE CARE HOME','Linden House Care Home','health',12,'heldout6-seed','ee575d20191c4e40647881eefc7964aca9b314c0f094679672e48f49214f0b29',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(208,5,'2026-06-08',196500,'GBP','DWP STATE PENSION','Dwp State Pension','income',NULL,'heldout6-seed','186d90e4fa3bc3b18bd172a0c43c188bb94d901c1ea6f4ab3f9d25190c9b1a3f',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(209,5,'2026-07-08',196500,'GBP','DWP STATE PENSION','Dwp State Pension','income',NULL,'heldout6-seed','5fcee05de23d87f5429c5593b86b2176ede70dab7bf0035be2d79ca66592e1b8',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(210,5,'2026-08-08',196500,'GBP','DWP STATE PENSION','Dwp State Pension','income',NULL,'heldout6-seed','20c58583f511cd031de2da264f15207cbdc8e351d59f4c34dead3307911d38f3',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(211,5,'2026-09-08',196500,'GBP','DWP STATE PENSION','Dwp State Pension','income',NULL,'heldout6-seed','4682185d2e7bb835a4f9277dfda6585d9dc206ed77741fa9127a7801205b8fc7',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(212,5,'2026-10-08',196500,'GBP','DWP STATE PENSION','Dwp State Pension','income',NULL,'heldout6-seed','b8830c64859472b699bb1a63612ee2a5dd032c9f8c471f12baf4e39bc27b1832',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(213,5,'2026-11-08',196500,'GBP','DWP STATE PENSION','Dwp State Pension','income',NULL,'heldout6-seed','4d9b3762a40f5cfa9754fcea42bd834275a7348604df300ee769891b6c501a87',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(214,5,'2026-06-12',150000,'GBP','RENNIE A TRANSFER','Rennie A Transfer','transfers',NULL,'heldout6-seed','1e3f46d0b50ff6d77179aabaad9cce308e5904cf71449733979a0ce138e408a2',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(215,5,'2026-07-12',150000,'GBP','RENNIE A TRANSFER','Rennie A Transfer','transfers',NULL,'heldout6-seed','2151dbf62688a55b10bd75a5b8ec493934ca7e5b0b73918d73720ced5bf3bb48',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(216,5,'2026-08-12',150000,'GBP','RENNIE A TRANSFER','Rennie A Transfer','transfers',NULL,'heldout6-seed','c8e86eaccf9b3a837421ba9ac2f14a43a99b9754b999c5a4de106ead1fd73f87',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(217,5,'2026-09-12',150000,'GBP','RENNIE A TRANSFER','Rennie A Transfer','transfers',NULL,'heldout6-seed','b25feae4b0acb382de7e041fbe3bbcd30a0d1f9d79188873725e39538d88e01d',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(218,5,'2026-10-12',150000,'GBP','RENNIE A TRANSFER','Rennie A Transfer','transfers',NULL,'heldout6-seed','b171be80f213752c0918094f865d8e7e4ba8d90558598584945a655cfc3dc13c',NULL,'2026-12-06T17:53:21+00:00');
INSERT INTO "transactions" VALUES(219,5,'2026-11-12',150000,'GBP','RENNIE A TRANSFER','Rennie A Transfer','transfers',NULL,'heldout6-seed','ee28710427fcc880ae8b4aed9f71910af6dfedb6d96c51da79c9380090de9cfe',NULL,'2026-12-06T17:53:21+00:00');
CREATE UNIQUE INDEX idx_txn_external
  ON transactions(account_id, external_id) WHERE external_id IS NOT NULL;
CREATE INDEX idx_txn_account_date ON transactions(account_id, posted_date);
CREATE INDEX idx_txn_base
  ON transactions(account_id, posted_date, amount_cents, merchant_raw);
CREATE INDEX idx_txn_merchant ON transactions(merchant_clean);
CREATE INDEX idx_recurring_scope
  ON recurring_groups(account_id, currency, merchant_clean);
CREATE INDEX idx_accounts_purpose ON accounts(purpose);
CREATE INDEX idx_accounts_analysis_treatment ON accounts(analysis_treatment);
COMMIT;
