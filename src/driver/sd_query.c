/* sd_query: being written. */
