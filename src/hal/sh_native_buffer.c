/* sh_native_buffer: being written. */
