CREATE TABLE `caller_id_health` (
	`org_id` text NOT NULL,
	`caller_id` text NOT NULL,
	`rested_until` integer,
	`rested_at` integer,
	`evidence` text,
	`updated` integer NOT NULL,
	PRIMARY KEY(`org_id`, `caller_id`),
	FOREIGN KEY (`org_id`) REFERENCES `orgs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_org_carriers` (
	`org_id` text NOT NULL,
	`kind` text NOT NULL,
	`weight` integer,
	`position` integer DEFAULT 0 NOT NULL,
	`settings` text NOT NULL,
	`secrets_sealed` text NOT NULL,
	`created` integer NOT NULL,
	`updated` integer NOT NULL,
	PRIMARY KEY(`org_id`, `kind`),
	FOREIGN KEY (`org_id`) REFERENCES `orgs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `__new_org_carriers`("org_id", "kind", "weight", "position", "settings", "secrets_sealed", "created", "updated") SELECT "org_id", "kind", NULL, 0, "settings", "secrets_sealed", "created", "updated" FROM `org_carriers`;--> statement-breakpoint
DROP TABLE `org_carriers`;--> statement-breakpoint
ALTER TABLE `__new_org_carriers` RENAME TO `org_carriers`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
ALTER TABLE `orgs` ADD `caller_id_rest_days` integer DEFAULT 7 NOT NULL;--> statement-breakpoint
ALTER TABLE `calls` ADD `caller_id` text;--> statement-breakpoint
ALTER TABLE `calls` ADD `rang_at` integer;--> statement-breakpoint
ALTER TABLE `calls` ADD `attestation` text;--> statement-breakpoint
CREATE INDEX `calls_caller_id` ON `calls` (`org_id`,`caller_id`,`started`) WHERE caller_id IS NOT NULL;