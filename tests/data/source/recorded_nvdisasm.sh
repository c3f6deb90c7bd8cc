#!/bin/sh
# nvdisasm as recorded: the output of `nvdisasm -c` (CUDA 13.0) for the cubin of hotspots.gpuscope
# (tests/fuzz/seeds/sass/hotspots.cubin), whatever the arguments. GPUSCOPE_NVDISASM=this script
# gives a report of that capture its SASS where the toolkit has no nvdisasm (the browser tests).
exec cat "$(dirname "$0")/hotspots_sass.txt"
