CREATE TABLE `lead_imports` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`campaign_id` text NOT NULL,
	`state` text NOT NULL,
	`file_sha256` text NOT NULL,
	`mapping` text NOT NULL,
	`rows_total` integer DEFAULT 0 NOT NULL,
	`rows_done` integer DEFAULT 0 NOT NULL,
	`rows_imported` integer DEFAULT 0 NOT NULL,
	`rows_failed` integer DEFAULT 0 NOT NULL,
	`created` integer NOT NULL,
	`updated` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `orgs`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `lead_imports_org` ON `lead_imports` (`org_id`,`id`);--> statement-breakpoint
CREATE INDEX `lead_imports_resume` ON `lead_imports` (`org_id`,`campaign_id`,`file_sha256`);--> statement-breakpoint
ALTER TABLE `console_sessions` ADD `admin_epoch` text;