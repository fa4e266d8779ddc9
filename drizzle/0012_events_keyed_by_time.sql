PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_events` (
	`seq` integer PRIMARY KEY NOT NULL,
	`id` text NOT NULL,
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
-- seq: the id's millisecond (its first 12 hex digits) since 2020-01-01, times 4096, plus the number of ids
-- of that millisecond that sort before it; so seq sorts as the ids did (db/event-keys.ts makes new ones the same
-- way). The count reads the old id index over the millisecond's few ids: no sort, so no memory that grows with the table.
INSERT INTO `__new_events`("seq", "id", "org_id", "livemode", "type", "campaign_id", "object_id", "created", "body")
SELECT (max(`ms`, 1577836800000) - 1577836800000) * 4096
    + (SELECT count(*) FROM `events` AS `earlier` WHERE `earlier`.`id` >= substr(`old`.`id`, 1, 16) AND `earlier`.`id` < `old`.`id`),
  "id", "org_id", "livemode", "type", "campaign_id", "object_id", "created", "body"
FROM (SELECT *, (instr('0123456789abcdef', substr(`id`, 5, 1)) - 1) * 17592186044416 + (instr('0123456789abcdef', substr(`id`, 6, 1)) - 1) * 1099511627776 + (instr('0123456789abcdef', substr(`id`, 7, 1)) - 1) * 68719476736 + (instr('0123456789abcdef', substr(`id`, 8, 1)) - 1) * 4294967296 + (instr('0123456789abcdef', substr(`id`, 9, 1)) - 1) * 268435456 + (instr('0123456789abcdef', substr(`id`, 10, 1)) - 1) * 16777216 + (instr('0123456789abcdef', substr(`id`, 11, 1)) - 1) * 1048576 + (instr('0123456789abcdef', substr(`id`, 12, 1)) - 1) * 65536 + (instr('0123456789abcdef', substr(`id`, 13, 1)) - 1) * 4096 + (instr('0123456789abcdef', substr(`id`, 14, 1)) - 1) * 256 + (instr('0123456789abcdef', substr(`id`, 15, 1)) - 1) * 16 + (instr('0123456789abcdef', substr(`id`, 16, 1)) - 1) * 1 AS `ms` FROM `events`) AS `old`;--> statement-breakpoint
DROP TABLE `events`;--> statement-breakpoint
ALTER TABLE `__new_events` RENAME TO `events`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `events_org_list` ON `events` (`org_id`,`livemode`);--> statement-breakpoint
CREATE INDEX `events_object` ON `events` (`object_id`);