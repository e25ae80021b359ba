CREATE TABLE "key_spend" (
	"key_hash" text NOT NULL,
	"day" date NOT NULL,
	"cost" double precision DEFAULT 0 NOT NULL,
	CONSTRAINT "key_spend_key_hash_day_pk" PRIMARY KEY("key_hash","day")
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "credit_limit" double precision;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "limit_reset" text;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "requests_per_minute" integer;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "tokens_per_minute" integer;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "max_concurrent_streams" integer;--> statement-breakpoint
ALTER TABLE "key_spend" ADD CONSTRAINT "key_spend_key_hash_api_keys_hash_fk" FOREIGN KEY ("key_hash") REFERENCES "public"."api_keys"("hash") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_limit_reset_values" CHECK ("api_keys"."limit_reset" in ('daily', 'weekly', 'monthly'));--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_credit_limit_range" CHECK ("api_keys"."credit_limit" >= 0);