/* Packing for the tuning library's arms: MPI_Pack and MPI_Unpack of
 * elements at an address given as an integer (MPI_BOTTOM with types that
 * hold absolute addresses is allowed), and whether a datatype's elements
 * are their bytes as they are, so that an arm may cut a buffer anywhere.
 * Packed data is assumed to be exactly the type size, as on homogeneous
 * builds of both MPIs (the callers check MPI_Pack_size per call). */
#include "tune_internal.h"

int psk_tune_pack(int pack, uintptr_t at, int count, MPI_Datatype type, void *buf, int size, int *pos,
                  MPI_Comm comm)
{
    /* MPICH 4.0 refuses a null user buffer, which MPI_BOTTOM is (absolute
     * addresses in the type): such elements are described as the same
     * elements at an offset from a non-null address */
    enum { SHIFT = 64 };
    MPI_Datatype shifted = MPI_DATATYPE_NULL;
    int rc = MPI_SUCCESS;
    if (count == 0)
        return MPI_SUCCESS;
    if (!at) {
        MPI_Aint disp = -(MPI_Aint)SHIFT;
        rc = PMPI_Type_create_hindexed(1, &count, &disp, type, &shifted);
        if (rc == MPI_SUCCESS && (rc = PMPI_Type_commit(&shifted)) != MPI_SUCCESS)
            PMPI_Type_free(&shifted);
        if (rc != MPI_SUCCESS)
            return rc;
        at = SHIFT;
        type = shifted;
        count = 1;
    }
    rc = pack ? PMPI_Pack((void *)at, count, type, buf, size, pos, comm)
              : PMPI_Unpack(buf, size, pos, (void *)at, count, type, comm);
    if (shifted != MPI_DATATYPE_NULL)
        PMPI_Type_free(&shifted);
    return rc;
}

int psk_tune_named(MPI_Datatype type)
{
    int ni, na, nd, comb;
    return PMPI_Type_get_envelope(type, &ni, &na, &nd, &comb) == MPI_SUCCESS && comb == MPI_COMBINER_NAMED;
}

int psk_tune_contig(MPI_Datatype type)
{
    int size;
    MPI_Aint lb, ext;
    /* a named type (MPI_INT, MPI_2INT, ...; not MPI_DOUBLE_INT, whose
     * extent has a hole) whose extent is its size from 0 */
    return psk_tune_named(type) && PMPI_Type_size(type, &size) == MPI_SUCCESS &&
           PMPI_Type_get_extent(type, &lb, &ext) == MPI_SUCCESS && lb == 0 && ext == size && size > 0;
}
