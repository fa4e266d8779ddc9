-- The lead store now moves campaign_counters.api_waiting itself, in the same transaction as
-- the lead row: the insert and update triggers cost every lead write about 10 us. The delete
-- trigger stays (leads are deleted rarely, and not through the store).
DROP TRIGGER IF EXISTS leads_waiting_insert;
--> statement-breakpoint
DROP TRIGGER IF EXISTS leads_waiting_update;
--> statement-breakpoint
-- Recounted once, so a count is exact whatever wrote the rows before.
UPDATE campaign_counters SET api_waiting = (
  SELECT count(*) FROM leads
  WHERE leads.campaign_id = campaign_counters.campaign_id AND leads.livemode = campaign_counters.livemode
    AND leads.lead_source = 'api' AND leads.status IN ('queued', 'scheduled', 'held')
);
