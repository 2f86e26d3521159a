/* sd_external: being written. */
