CREATE TABLE "key_spend_batches" (
	"id" text PRIMARY KEY NOT NULL,
	"written_at" timestamp with time zone DEFAULT now() NOT NULL
);
