-- Waiting API leads per campaign and mode (the 5,000 queue_full limit), kept in step with
-- every lead write by triggers, so the count is exact inside any transaction and costs one
-- row lookup to read.
INSERT OR IGNORE INTO campaign_counters (campaign_id, livemode, api_waiting)
  SELECT id, 1, 0 FROM campaigns UNION ALL SELECT id, 0, 0 FROM campaigns;
--> statement-breakpoint
CREATE TRIGGER campaign_counters_new_campaign AFTER INSERT ON campaigns
BEGIN
  INSERT OR IGNORE INTO campaign_counters (campaign_id, livemode, api_waiting) VALUES (NEW.id, 1, 0), (NEW.id, 0, 0);
END;
--> statement-breakpoint
CREATE TRIGGER leads_waiting_insert AFTER INSERT ON leads
WHEN NEW.lead_source = 'api' AND NEW.status IN ('queued', 'scheduled', 'held')
BEGIN
  UPDATE campaign_counters SET api_waiting = api_waiting + 1
  WHERE campaign_id = NEW.campaign_id AND livemode = NEW.livemode;
END;
--> statement-breakpoint
CREATE TRIGGER leads_waiting_update AFTER UPDATE OF status ON leads
WHEN (OLD.lead_source = 'api' AND OLD.status IN ('queued', 'scheduled', 'held'))
  <> (NEW.lead_source = 'api' AND NEW.status IN ('queued', 'scheduled', 'held'))
BEGIN
  UPDATE campaign_counters
  SET api_waiting = api_waiting + CASE WHEN NEW.status IN ('queued', 'scheduled', 'held') THEN 1 ELSE -1 END
  WHERE campaign_id = NEW.campaign_id AND livemode = NEW.livemode;
END;
--> statement-breakpoint
CREATE TRIGGER leads_waiting_delete AFTER DELETE ON leads
WHEN OLD.lead_source = 'api' AND OLD.status IN ('queued', 'scheduled', 'held')
BEGIN
  UPDATE campaign_counters SET api_waiting = api_waiting - 1
  WHERE campaign_id = OLD.campaign_id AND livemode = OLD.livemode;
END;
