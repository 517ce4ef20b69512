"""Infrastructure: database, unit of work, queue, security, i18n glue."""
