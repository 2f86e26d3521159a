#version 450
// Pipeline statistics: a kernel whose invocations are only counted.
layout(local_size_x = 8, local_size_y = 4, local_size_z = 2) in;
void main()
{
}
