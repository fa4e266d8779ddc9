CREATE TABLE `call_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`lead_id` text NOT NULL,
	`key_id` text NOT NULL,
	`at` integer NOT NULL,
	FOREIGN KEY (`lead_id`) REFERENCES `leads`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `call_requests_lead` ON `call_requests` (`lead_id`,`at`);--> statement-breakpoint
CREATE TABLE `campaign_counters` (
	`campaign_id` text NOT NULL,
	`livemode` integer NOT NULL,
	`api_waiting` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`campaign_id`, `livemode`),
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `events` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`livemode` integer NOT NULL,
	`type` text NOT NULL,
	`campaign_id` text,
	`object_id` text NOT NULL,
	`created` integer NOT NULL,
	`body` text NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `orgs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `events_org_list` ON `events` (`org_id`,`livemode`,`id`);--> statement-breakpoint
CREATE INDEX `events_object` ON `events` (`object_id`,`id`);--> statement-breakpoint
CREATE INDEX `events_created` ON `events` (`created`);--> statement-breakpoint
CREATE TABLE `leads` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`campaign_id` text NOT NULL,
	`livemode` integer NOT NULL,
	`external_id` text,
	`phone` text NOT NULL,
	`name` text,
	`email` text,
	`address` text,
	`fields` text NOT NULL,
	`consent` text,
	`lead_source` text,
	`owner` text,
	`status` text NOT NULL,
	`call_now` integer NOT NULL,
	`queue_key` integer,
	`queued_at` integer NOT NULL,
	`due_at` integer,
	`due_reason` text,
	`held_reason` text,
	`callback_at` integer,
	`late` integer DEFAULT false NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_outcome` text,
	`last_outcome_label` text,
	`next_dial_at` integer,
	`last_posted_at` integer NOT NULL,
	`last_contact_at` integer,
	`out_reason` text,
	`opt_out_reason` text,
	`opted_out_at` integer,
	`created` integer NOT NULL,
	`updated` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `orgs`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `leads_campaign_phone` ON `leads` (`campaign_id`,`livemode`,`phone`);--> statement-breakpoint
CREATE UNIQUE INDEX `leads_campaign_external` ON `leads` (`campaign_id`,`livemode`,`external_id`) WHERE external_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX `leads_org_list` ON `leads` (`org_id`,`livemode`,`id`);--> statement-breakpoint
CREATE INDEX `leads_org_external` ON `leads` (`org_id`,`livemode`,`external_id`);--> statement-breakpoint
CREATE INDEX `leads_org_phone` ON `leads` (`org_id`,`livemode`,`phone`);--> statement-breakpoint
CREATE INDEX `leads_campaign_list` ON `leads` (`campaign_id`,`livemode`,`id`);--> statement-breakpoint
CREATE INDEX `leads_queue` ON `leads` (`status`,`campaign_id`,`livemode`,`queue_key`,`id`);--> statement-breakpoint
CREATE INDEX `leads_due` ON `leads` (`status`,`due_at`);