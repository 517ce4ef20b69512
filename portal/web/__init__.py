"""Flask glue shared by every feature: tenancy, auth, errors, security headers, i18n."""
