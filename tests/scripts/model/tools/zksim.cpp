// Prints its arguments, one a line, for the scripts' tests to read.
#include <cstdio>

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) std::printf("arg %s\n", argv[i]);
}
