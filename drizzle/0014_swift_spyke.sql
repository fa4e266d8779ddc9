CREATE TABLE `dial_decisions` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`livemode` integer NOT NULL,
	`lead_id` text NOT NULL,
	`at` integer NOT NULL,
	`rule_id` text,
	`outcome` text NOT NULL,
	`until` integer,
	FOREIGN KEY (`org_id`) REFERENCES `orgs`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`lead_id`) REFERENCES `leads`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `dial_decisions_lead` ON `dial_decisions` (`lead_id`,`at`,`id`);--> statement-breakpoint
ALTER TABLE `leads` ADD `consent_recorded_at` integer;--> statement-breakpoint
ALTER TABLE `leads` ADD `consent_sha256` text;