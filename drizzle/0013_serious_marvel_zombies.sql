CREATE TABLE `dnc_registry_areas` (
	`area_code` integer PRIMARY KEY NOT NULL,
	`numbers` integer NOT NULL,
	`subscribers` blob NOT NULL
);
--> statement-breakpoint
CREATE TABLE `dnc_registry_imports` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`imported_at` integer NOT NULL,
	`total` integer NOT NULL,
	`lines` integer NOT NULL,
	`rejected` integer NOT NULL,
	`duplicates` integer NOT NULL
);
