/* sd_image: being written. */
