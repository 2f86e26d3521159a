/* sd_sampler: being written. */
