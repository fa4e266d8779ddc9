PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_org_carriers` (
	`org_id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`settings` text NOT NULL,
	`secrets_sealed` text NOT NULL,
	`created` integer NOT NULL,
	`updated` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `orgs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
-- Twilio's columns become its settings (the admin API's field names, in its reply order) and its sealed token, sealed value unchanged.
INSERT INTO `__new_org_carriers`("org_id", "kind", "settings", "secrets_sealed", "created", "updated")
SELECT "org_id", "kind",
	json_object('account_sid', "account_sid", 'caller_ids', json("caller_ids"), 'api_base_url', "api_base_url",
		'machine_detection', json(CASE WHEN "machine_detection" THEN 'true' ELSE 'false' END)),
	json_object('auth_token', "auth_token_sealed"),
	"created", "updated"
FROM `org_carriers`;--> statement-breakpoint
DROP TABLE `org_carriers`;--> statement-breakpoint
ALTER TABLE `__new_org_carriers` RENAME TO `org_carriers`;--> statement-breakpoint
PRAGMA foreign_keys=ON;
