#include <cups/cups.h>
#include <cups/ipp.h>
#include <cups/raster.h>
#include <cups/ppd.h>
#include <cups/adminutil.h>
