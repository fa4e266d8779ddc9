CREATE TABLE `dnc_state_registry_areas` (
	`state` text NOT NULL,
	`area_code` integer NOT NULL,
	`numbers` integer NOT NULL,
	`subscribers` blob NOT NULL,
	PRIMARY KEY(`state`, `area_code`)
);
--> statement-breakpoint
ALTER TABLE `campaigns` ADD `automated_voice` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `campaigns` ADD `recording_notice` text;--> statement-breakpoint
ALTER TABLE `calls` ADD `recording_consent` text;--> statement-breakpoint
ALTER TABLE `dnc_registry_imports` ADD `list` text DEFAULT 'national' NOT NULL;