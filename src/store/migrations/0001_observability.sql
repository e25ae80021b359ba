CREATE TABLE "generations" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"workspace_id" uuid NOT NULL,
	"key_hash" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"requested_model" text NOT NULL,
	"model" text,
	"provider" text,
	"provider_name" text,
	"is_byok" boolean DEFAULT false NOT NULL,
	"stream" boolean NOT NULL,
	"status" text NOT NULL,
	"http_status" integer NOT NULL,
	"stop_reason" text,
	"error_type" text,
	"error_message" text,
	"input_tokens" integer DEFAULT 0 NOT NULL,
	"output_tokens" integer DEFAULT 0 NOT NULL,
	"cache_read_tokens" integer DEFAULT 0 NOT NULL,
	"cache_write_tokens" integer DEFAULT 0 NOT NULL,
	"reasoning_tokens" integer DEFAULT 0 NOT NULL,
	"cost" double precision DEFAULT 0 NOT NULL,
	"time_to_first_byte_ms" integer,
	"total_ms" integer NOT NULL,
	"session_id" text,
	"user_id" text,
	"trace" jsonb,
	"attempts" jsonb NOT NULL,
	"tool_steps" jsonb,
	"prompt" jsonb,
	"completion" jsonb,
	"content_expires_at" timestamp with time zone,
	CONSTRAINT "generations_status_values" CHECK ("generations"."status" in ('success', 'refusal', 'error', 'cancelled'))
);
--> statement-breakpoint
CREATE TABLE "observability_destinations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"account_id" uuid NOT NULL,
	"workspace_id" uuid NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"endpoint" text NOT NULL,
	"protocol" text,
	"public_key" text,
	"header_names" text[] DEFAULT '{}'::text[] NOT NULL,
	"secret_label" text,
	"secret_ciphertext" "bytea" NOT NULL,
	"wrapped_data_key" "bytea" NOT NULL,
	"master_key_id" text NOT NULL,
	"sampling_rate" double precision DEFAULT 1 NOT NULL,
	"include_content" boolean DEFAULT false NOT NULL,
	"disabled" boolean DEFAULT false NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "observability_destinations_kind_values" CHECK ("observability_destinations"."kind" in ('otlp', 'langfuse', 'webhook')),
	CONSTRAINT "observability_destinations_sampling_rate_range" CHECK ("observability_destinations"."sampling_rate" >= 0 and "observability_destinations"."sampling_rate" <= 1)
);
--> statement-breakpoint
CREATE TABLE "workspace_settings" (
	"workspace_id" uuid PRIMARY KEY NOT NULL,
	"store_content" boolean DEFAULT false NOT NULL,
	"content_retention_days" integer DEFAULT 30 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "generations" ADD CONSTRAINT "generations_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "observability_destinations" ADD CONSTRAINT "observability_destinations_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "observability_destinations" ADD CONSTRAINT "observability_destinations_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workspace_settings" ADD CONSTRAINT "workspace_settings_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "generations_account_created_idx" ON "generations" USING btree ("account_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "generations_content_expiry_idx" ON "generations" USING btree ("content_expires_at") WHERE "generations"."content_expires_at" is not null;--> statement-breakpoint
CREATE INDEX "observability_destinations_account_idx" ON "observability_destinations" USING btree ("account_id","workspace_id");