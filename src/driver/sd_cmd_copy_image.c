/* sd_cmd_copy_image: being written. */
